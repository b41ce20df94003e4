#!/usr/bin/python3
"""Writes the SQL Django 3.2 (Debian's python3-django) emits for everyday
operations on the application schema of equivalence/refute/testdata/
app_schema.sql, each beside the SQL of the same operation with a realistic
bug (a dropped filter, >= for >, | for &, a wrong join, a flipped
isnull, an off-by-one slice, a dropped distinct, a flipped order under a
slice). One JSON line per pair: {"id", "op", "bug", "reference",
"candidate"}. The SQL is compiled against the PostgreSQL backend without a
connection; parameters are quoted by psycopg2 as the driver would send
them. equivalence/refute's TestDjangoBugs judges the committed output
(testdata/django_bugs.jsonl), so running the tests needs no Django:

    /usr/bin/python3 scripts/ormcorpus/django_app.py > equivalence/refute/testdata/django_bugs.jsonl
"""
import datetime
import json
import sys

import django
from django.conf import settings

settings.configure(
    DATABASES={"default": {"ENGINE": "django.db.backends.postgresql", "NAME": "app"}},
    INSTALLED_APPS=["app"],
    USE_TZ=True,
    TIME_ZONE="UTC",
)

import types

app_module = types.ModuleType("app")
app_module.__file__ = __file__
sys.modules["app"] = app_module

from django.apps import AppConfig


class App(AppConfig):
    name = "app"
    label = "app"
    path = "."


app_module.App = App
app_module.default_app_config = "app.App"
django.setup()

from django.db import connection, models
from django.db.models import Count, Exists, F, Max, OuterRef, Q, Sum
from psycopg2.extensions import adapt


class User(models.Model):
    username = models.CharField(max_length=150, unique=True)
    email = models.CharField(max_length=254)
    is_active = models.BooleanField()
    is_staff = models.BooleanField()
    date_joined = models.DateTimeField()
    last_login = models.DateTimeField(null=True)

    class Meta:
        app_label = "app"
        db_table = "users"


class Post(models.Model):
    author = models.ForeignKey(User, on_delete=models.CASCADE)
    title = models.CharField(max_length=200)
    slug = models.CharField(max_length=50, unique=True)
    body = models.TextField()
    status = models.CharField(max_length=10)
    created_at = models.DateTimeField()
    published_at = models.DateTimeField(null=True)
    views = models.IntegerField()

    class Meta:
        app_label = "app"
        db_table = "posts"


class Comment(models.Model):
    post = models.ForeignKey(Post, on_delete=models.CASCADE)
    author = models.ForeignKey(User, null=True, on_delete=models.SET_NULL)
    body = models.TextField()
    approved = models.BooleanField()
    created_at = models.DateTimeField()

    class Meta:
        app_label = "app"
        db_table = "comments"


class Tag(models.Model):
    name = models.CharField(max_length=50, unique=True)

    class Meta:
        app_label = "app"
        db_table = "tags"


class PostTag(models.Model):
    post = models.ForeignKey(Post, on_delete=models.CASCADE)
    tag = models.ForeignKey(Tag, on_delete=models.CASCADE)

    class Meta:
        app_label = "app"
        db_table = "post_tags"


class Order(models.Model):
    user = models.ForeignKey(User, on_delete=models.CASCADE)
    state = models.CharField(max_length=10)
    total = models.BigIntegerField()
    placed_at = models.DateTimeField()

    class Meta:
        app_label = "app"
        db_table = "orders"


def sql(qs):
    """The SQL of qs with its parameters quoted as psycopg2 sends them."""
    q, params = qs.query.sql_with_params()
    quoted = []
    for p in params:
        if isinstance(p, datetime.datetime):
            quoted.append("'%s'::timestamptz" % p.isoformat())
        else:
            quoted.append(adapt(p).getquoted().decode())
    return q % tuple(quoted)


T0 = datetime.datetime(2024, 1, 1, tzinfo=datetime.timezone.utc)
T1 = datetime.datetime(2024, 6, 1, tzinfo=datetime.timezone.utc)

# (operation, bug, reference queryset, candidate queryset)
PAIRS = [
    ("published posts", "dropped filter",
     Post.objects.filter(status="published", views__gt=10),
     Post.objects.filter(views__gt=10)),
    ("popular posts", ">= for >",
     Post.objects.filter(views__gt=100).values("id", "title"),
     Post.objects.filter(views__gte=100).values("id", "title")),
    ("staff or active", "| for &",
     User.objects.filter(Q(is_staff=True) & Q(is_active=True)).values("id"),
     User.objects.filter(Q(is_staff=True) | Q(is_active=True)).values("id")),
    ("posts of active authors", "wrong join filter",
     Post.objects.filter(author__is_active=True).values("id"),
     Post.objects.filter(author__is_staff=True).values("id")),
    ("never logged in", "isnull flipped",
     User.objects.filter(last_login__isnull=True).values("id"),
     User.objects.filter(last_login__isnull=False).values("id")),
    ("second page", "off-by-one offset",
     Post.objects.order_by("-created_at", "id").values("id")[10:20],
     Post.objects.order_by("-created_at", "id").values("id")[11:21]),
    ("first page", "page size",
     Post.objects.order_by("id").values("id")[:20],
     Post.objects.order_by("id").values("id")[:19]),
    ("newest first", "order flipped under a slice",
     Post.objects.order_by("-created_at", "-id").values("id")[:5],
     Post.objects.order_by("created_at", "id").values("id")[:5]),
    ("commenters", "dropped distinct",
     User.objects.filter(comment__approved=True).distinct().values("id"),
     User.objects.filter(comment__approved=True).values("id")),
    ("comment counts", "count distinct dropped",
     Post.objects.annotate(n=Count("comment__author", distinct=True)).values("id", "n"),
     Post.objects.annotate(n=Count("comment__author")).values("id", "n")),
    ("busy posts", "threshold",
     Post.objects.annotate(n=Count("comment")).filter(n__gt=5).values("id"),
     Post.objects.annotate(n=Count("comment")).filter(n__gte=5).values("id")),
    ("revenue per user", "sum for max",
     User.objects.annotate(t=Sum("order__total")).values("id", "t"),
     User.objects.annotate(t=Max("order__total")).values("id", "t")),
    ("paid orders", "wrong state",
     Order.objects.filter(state="paid").values("id"),
     Order.objects.filter(state="shipped").values("id")),
    ("orders in range", "range end included",
     Order.objects.filter(placed_at__gte=T0, placed_at__lt=T1).values("id"),
     Order.objects.filter(placed_at__gte=T0, placed_at__lte=T1).values("id")),
    ("posts with approved comments", "Exists dropped",
     Post.objects.filter(Exists(Comment.objects.filter(post=OuterRef("pk"), approved=True))).values("id"),
     Post.objects.filter(Exists(Comment.objects.filter(post=OuterRef("pk")))).values("id")),
    ("posts without comments", "exclude to filter",
     Post.objects.exclude(comment__isnull=False).values("id"),
     Post.objects.filter(comment__isnull=False).values("id")),
    ("tagged posts", "wrong tag",
     Post.objects.filter(posttag__tag__name="go").values("id"),
     Post.objects.filter(posttag__tag__name="rust").values("id")),
    ("titles by slug", "icontains for contains",
     Post.objects.filter(slug__contains="go").values("id"),
     Post.objects.filter(slug__icontains="go").values("id")),
    ("title search", "startswith for contains",
     Post.objects.filter(title__contains="SQL").values("id"),
     Post.objects.filter(title__startswith="SQL").values("id")),
    ("users by id list", "in list shortened",
     User.objects.filter(id__in=[1, 2, 3]).values("id"),
     User.objects.filter(id__in=[1, 2]).values("id")),
    ("self-views", "F expression",
     Post.objects.filter(views__gt=F("id")).values("id"),
     Post.objects.filter(views__gte=F("id")).values("id")),
    ("comments of a post's author", "wrong join column",
     Comment.objects.filter(author=F("post__author")).values("id"),
     Comment.objects.filter(author_id=F("post_id")).values("id")),
    ("recent comments", "select_related with dropped filter",
     Comment.objects.select_related("post").filter(approved=True, post__status="published").values("id", "post__title"),
     Comment.objects.select_related("post").filter(approved=True).values("id", "post__title")),
    ("users with orders", "filter on the other relation",
     User.objects.filter(order__total__gt=1000).distinct().values("id"),
     User.objects.filter(order__total__gt=100).distinct().values("id")),
    ("comments not by staff", "negation through a nullable relation",
     Comment.objects.filter(~Q(author__is_staff=True)).values("id"),
     Comment.objects.filter(author__is_staff=False).values("id")),
    ("count of published", "count over all",
     Post.objects.filter(status="published").values("status").annotate(n=Count("id")).values("n"),
     Post.objects.values("status").annotate(n=Count("id")).values("n")),
]

# django_upgrades.py imports the models and sql() from here.
if __name__ == "__main__":
    out = sys.stdout
    for i, (op, bug, ref, cand) in enumerate(PAIRS):
        out.write(json.dumps({"id": "django-%02d" % i, "op": op, "bug": bug, "reference": sql(ref), "candidate": sql(cand)}) + "\n")

#!/usr/bin/python3
"""Writes pairs of SQL that Django 3.2 (Debian's python3-django) emits for
two formulations of the same everyday operation on the application schema
of equivalence/refute/testdata/app_schema.sql: the kind of rewrite an ORM
upgrade or a refactor produces (.filter(a).filter(b) for .filter(a, b),
annotate(Count) for a Coalesce(Subquery) count, __in for a join and
distinct(), Exists for __in, Count(filter=Q) for Sum(Case(When)), __year
for a range, ...). Every pair must return the same rows on every database
of the schema: equivalence's TestDjangoUpgrades checks each on PostgreSQL
over generated data, then judges it (no not_equivalent, no error, a floor
on the proved fraction). Pairs whose two sides Django compiles to the same
text are left out (they prove nothing about the prover). One JSON line per
pair: {"id", "op", "change", "reference", "candidate", "ordered"}, ordered
when both sides order their rows by a key (compared as lists).

Aggregates, count() and exists() run their query at once; they are
compiled by letting Django build it and catching the SQL at
SQLCompiler.execute_sql, so the text is the one Django would send.

    /usr/bin/python3 scripts/ormcorpus/django_upgrades.py > equivalence/testdata/django_upgrades.jsonl
"""
import datetime
import json
import sys

from django_app import Comment, Order, Post, PostTag, Tag, User, sql

from django.db import models
from django.db.models import (Avg, BooleanField, Case, Count, Exists, ExpressionWrapper, F, IntegerField, Max,
                              Min, OuterRef, Q, Subquery, Sum, Value, When)
from django.db.models.functions import Coalesce, ExtractYear, Left, TruncDate
from django.db.models.sql.compiler import SQLCompiler


class PostMeta(models.Model):
    """posts again, with its jsonb column (django_app's Post leaves it out,
    so that its committed SELECT lists stay as they are)."""
    author = models.ForeignKey(User, on_delete=models.CASCADE)
    status = models.CharField(max_length=10)
    metadata = models.JSONField()

    class Meta:
        app_label = "app"
        db_table = "posts"
        managed = False


class Caught(Exception):
    def __init__(self, text):
        super().__init__(text)
        self.text = text


def _catch(self, *args, **kwargs):
    q, params = self.as_sql()
    raise Caught(_quote(q, params))


def _quote(q, params):
    from django_app import adapt
    quoted = []
    for p in params:
        if isinstance(p, datetime.datetime):
            quoted.append("'%s'::timestamptz" % p.isoformat())
        else:
            quoted.append(adapt(p).getquoted().decode())
    return q % tuple(quoted)


SQLCompiler.execute_sql = _catch


def run(f):
    """The SQL of an operation that executes at once (aggregate, count)."""
    try:
        f()
    except Caught as c:
        return c.text
    raise RuntimeError("no query")


def text(x):
    return run(x) if callable(x) else sql(x)


T2024 = datetime.datetime(2024, 1, 1, tzinfo=datetime.timezone.utc)
T2025 = datetime.datetime(2025, 1, 1, tzinfo=datetime.timezone.utc)
T0 = datetime.datetime(2024, 3, 1, tzinfo=datetime.timezone.utc)
T1 = datetime.datetime(2024, 6, 1, tzinfo=datetime.timezone.utc)


def comment_count(**kw):
    return Coalesce(Subquery(Comment.objects.filter(post=OuterRef("pk"), **kw).values("post")
                             .annotate(c=Count("id")).values("c")), 0)


def order_count(**kw):
    return Coalesce(Subquery(Order.objects.filter(user=OuterRef("pk"), **kw).values("user")
                             .annotate(c=Count("id")).values("c")), 0)


# (operation, change, reference, candidate, ordered): a queryset, or a
# callable for an operation that executes at once.
PAIRS = [
    # chained filters on single-valued fields and forward relations
    ("published popular posts", "filter chained in the other order",
     Post.objects.filter(status="published", views__gt=10).values("id", "title"),
     Post.objects.filter(views__gt=10).filter(status="published").values("id", "title"), False),
    ("active staff", "Q objects reordered",
     User.objects.filter(Q(is_staff=True) | Q(is_active=True)).values("id"),
     User.objects.filter(Q(is_active=True) | Q(is_staff=True)).values("id"), False),
    ("recent approved comments", "Q & for kwargs",
     Comment.objects.filter(Q(created_at__gte=T0) & Q(approved=True)).values("id"),
     Comment.objects.filter(created_at__gte=T0, approved=True).values("id"), False),
    ("posts with a title or a slug", "nested Q distributed",
     Post.objects.filter(Q(status="published") & (Q(views__gt=100) | Q(title__startswith="SQL"))).values("id"),
     Post.objects.filter(Q(status="published", views__gt=100) | Q(status="published", title__startswith="SQL")).values("id"), False),

    # exclude forms
    ("not drafts by views", "exclude(lte) for filter(gt) on a NOT NULL column",
     Post.objects.exclude(views__lte=10).values("id"),
     Post.objects.filter(views__gt=10).values("id"), False),
    ("users who logged in", "exclude(isnull) for filter(isnull=False)",
     User.objects.exclude(last_login__isnull=True).values("id"),
     User.objects.filter(last_login__isnull=False).values("id"), False),
    ("users not seen before T0", "exclude on a nullable column for an OR with isnull",
     User.objects.exclude(last_login__lt=T0).values("id"),
     User.objects.filter(Q(last_login__gte=T0) | Q(last_login__isnull=True)).values("id"), False),
    ("non-staff comments", "exclude for ~Q",
     Comment.objects.exclude(approved=True).values("id"),
     Comment.objects.filter(approved=False).values("id"), False),
    ("posts not by inactive authors", "exclude through a forward FK",
     Post.objects.exclude(author__is_active=False).values("id"),
     Post.objects.filter(author__is_active=True).values("id"), False),

    # counts as annotations
    ("comment counts", "annotate(Count) for Coalesce(Subquery) count",
     Post.objects.annotate(n=Count("comment")).values("id", "n"),
     Post.objects.annotate(n=comment_count()).values("id", "n"), False),
    ("approved comment counts", "Count(filter=Q) for a filtered Coalesce(Subquery) count",
     Post.objects.annotate(n=Count("comment", filter=Q(comment__approved=True))).values("id", "n"),
     Post.objects.annotate(n=comment_count(approved=True)).values("id", "n"), False),
    ("order counts per user", "annotate(Count) for Coalesce(Subquery) count",
     User.objects.annotate(n=Count("order")).values("id", "n"),
     User.objects.annotate(n=order_count()).values("id", "n"), False),
    ("busy posts", "annotated count filtered for a Subquery count filtered",
     Post.objects.annotate(n=Count("comment")).filter(n__gte=2).values("id"),
     Post.objects.annotate(n=comment_count()).filter(n__gte=2).values("id"), False),
    ("distinct commenters per post", "Count(distinct) for a Subquery count(distinct)",
     Post.objects.annotate(n=Count("comment__author", distinct=True)).values("id", "n"),
     Post.objects.annotate(n=Coalesce(Subquery(Comment.objects.filter(post=OuterRef("pk")).values("post")
                                               .annotate(c=Count("author", distinct=True)).values("c")), 0)).values("id", "n"), False),
    ("approved counts by post", "Count(filter=Q) for Sum(Case(When))",
     Comment.objects.values("post_id").annotate(n=Count("id", filter=Q(approved=True))).values("post_id", "n"),
     Comment.objects.values("post_id").annotate(n=Sum(Case(When(approved=True, then=1), default=0, output_field=IntegerField()))).values("post_id", "n"), False),
    ("published counts by author", "Count(filter=Q) for Count(Case(When))",
     Post.objects.values("author_id").annotate(n=Count("id", filter=Q(status="published"))).values("author_id", "n"),
     Post.objects.values("author_id").annotate(n=Count(Case(When(status="published", then="id")))).values("author_id", "n"), False),

    # semi-joins: __in, Exists, join + distinct
    ("authors of published posts", "__in subquery for a join and distinct()",
     User.objects.filter(id__in=Post.objects.filter(status="published").values("author_id")).values("id", "username"),
     User.objects.filter(post__status="published").distinct().values("id", "username"), False),
    ("posts with approved comments", "Exists() for __in",
     Post.objects.filter(Exists(Comment.objects.filter(post=OuterRef("pk"), approved=True))).values("id"),
     Post.objects.filter(id__in=Comment.objects.filter(approved=True).values("post_id")).values("id"), False),
    ("posts with approved comments", "Exists() for a join and distinct()",
     Post.objects.filter(Exists(Comment.objects.filter(post=OuterRef("pk"), approved=True))).values("id", "title"),
     Post.objects.filter(comment__approved=True).distinct().values("id", "title"), False),
    ("users with orders", "join and distinct() for __in",
     User.objects.filter(order__total__gt=1000).distinct().values("id"),
     User.objects.filter(id__in=Order.objects.filter(total__gt=1000).values("user")).values("id"), False),
    ("users with orders", "Exists() for __in over a FK",
     User.objects.filter(Exists(Order.objects.filter(user=OuterRef("pk"), state="paid"))).values("id"),
     User.objects.filter(pk__in=Order.objects.filter(state="paid").values("user_id")).values("id"), False),
    ("posts tagged go", "join through the junction table and distinct() for Exists()",
     Post.objects.filter(posttag__tag__name="go").distinct().values("id"),
     Post.objects.filter(Exists(PostTag.objects.filter(post=OuterRef("pk"), tag__name="go"))).values("id"), False),
    ("posts tagged go", "join through the junction table (unique post, tag) for Exists()",
     Post.objects.filter(posttag__tag__name="go").values("id"),
     Post.objects.filter(Exists(PostTag.objects.filter(post=OuterRef("pk"), tag__name="go"))).values("id"), False),
    ("posts tagged go", "__in through the junction for a nested __in",
     Post.objects.filter(id__in=PostTag.objects.filter(tag__name="go").values("post_id")).values("id"),
     Post.objects.filter(id__in=PostTag.objects.filter(tag__in=Tag.objects.filter(name="go")).values("post_id")).values("id"), False),
    ("posts whose author commented", "Exists() for __in over two relations",
     Post.objects.filter(Exists(Comment.objects.filter(post=OuterRef("pk"), author=OuterRef("author")))).values("id"),
     Post.objects.filter(comment__author=F("author")).distinct().values("id"), False),
    ("posts by staff", "__in on a FK for a join",
     Post.objects.filter(author__in=User.objects.filter(is_staff=True)).values("id"),
     Post.objects.filter(author__is_staff=True).values("id"), False),

    # anti-joins and isnull on relations
    ("anonymous comments", "fk__isnull for a LEFT JOIN on a NOT NULL column",
     Comment.objects.filter(author__isnull=True).values("id"),
     Comment.objects.filter(author__username__isnull=True).values("id"), False),
    ("posts without comments", "reverse __isnull (LEFT JOIN) for ~Exists()",
     Post.objects.filter(comment__isnull=True).values("id"),
     Post.objects.filter(~Exists(Comment.objects.filter(post=OuterRef("pk")))).values("id"), False),
    ("posts without comments", "exclude(__isnull=False) for ~Exists()",
     Post.objects.exclude(comment__isnull=False).values("id"),
     Post.objects.filter(~Exists(Comment.objects.filter(post=OuterRef("pk")))).values("id"), False),
    ("users without orders", "annotate Count = 0 for ~Exists()",
     User.objects.annotate(n=Count("order")).filter(n=0).values("id"),
     User.objects.filter(~Exists(Order.objects.filter(user=OuterRef("pk")))).values("id"), False),
    ("commented anonymously", "exclude(author__isnull=False) for filter(author__isnull=True)",
     Comment.objects.exclude(author__isnull=False).values("id"),
     Comment.objects.filter(author__isnull=True).values("id"), False),
    ("signed comments", "author__isnull=False for a join on users",
     Comment.objects.filter(author__isnull=False).values("id"),
     Comment.objects.filter(author__username__isnull=False).values("id"), False),

    # grouping
    ("authors", "values().distinct() for values().annotate()",
     Post.objects.values("author_id").distinct(),
     Post.objects.values("author_id").annotate(n=Count("id")).values("author_id"), False),
    ("statuses", "distinct() for an annotate() grouping",
     Post.objects.values("status").distinct(),
     Post.objects.values("status").annotate(m=Max("views")).values("status"), False),
    ("posts per username", "GROUP BY a unique NOT NULL column for GROUP BY the key",
     User.objects.values("username").annotate(n=Count("post")).values("username", "n"),
     User.objects.annotate(n=Count("post")).values("username", "n"), False),
    ("revenue per user", "annotate(Sum) over the join for grouping the child",
     User.objects.filter(order__isnull=False).annotate(t=Sum("order__total")).values("id", "t"),
     Order.objects.values("user_id").annotate(t=Sum("total")).values("user_id", "t"), False),
    ("comment counts of commented posts", "join-and-count for grouping the child",
     Post.objects.filter(comment__isnull=False).annotate(n=Count("comment")).values("id", "n"),
     Comment.objects.values("post_id").annotate(n=Count("id")).values("post_id", "n"), False),

    # aggregates
    ("paid revenue", "Sum(filter=Q) for filter().aggregate(Sum)",
     lambda: Order.objects.aggregate(s=Sum("total", filter=Q(state="paid"))),
     lambda: Order.objects.filter(state="paid").aggregate(s=Sum("total")), False),
    ("published count", "Count(filter=Q) for Coalesce(Sum(Case(When)))",
     lambda: Post.objects.aggregate(n=Count("id", filter=Q(status="published"))),
     lambda: Post.objects.aggregate(n=Coalesce(Sum(Case(When(status="published", then=1), default=0, output_field=IntegerField())), 0)), False),
    ("published count", "filter().count() for aggregate(Count(filter=Q))",
     lambda: Post.objects.filter(status="published").count(),
     lambda: Post.objects.aggregate(n=Count("id", filter=Q(status="published"))), False),
    ("distinct commenters", "Count(distinct) for count() over distinct non-null values",
     lambda: Comment.objects.aggregate(n=Count("author", distinct=True)),
     lambda: Comment.objects.filter(author__isnull=False).values("author").distinct().count(), False),
    ("largest order", "aggregate(Max) for Coalesce-free Max over filter",
     lambda: Order.objects.aggregate(m=Max("total", filter=Q(state="shipped"))),
     lambda: Order.objects.filter(state="shipped").aggregate(m=Max("total")), False),
    ("order count", "count() for aggregate(Count('id'))",
     lambda: Order.objects.count(),
     lambda: Order.objects.aggregate(n=Count("id")), False),
    ("views of published posts", "aggregate(Sum, Count) for filter() aggregates",
     lambda: Post.objects.aggregate(s=Sum("views", filter=Q(status="published")), n=Count("id", filter=Q(status="published"))),
     lambda: Post.objects.filter(status="published").aggregate(s=Sum("views"), n=Count("id")), False),
    ("latest comment per post", "Subquery order_by()[:1] for Max",
     Post.objects.annotate(last=Subquery(Comment.objects.filter(post=OuterRef("pk")).order_by("-created_at").values("created_at")[:1])).values("id", "last"),
     Post.objects.annotate(last=Max("comment__created_at")).values("id", "last"), False),
    ("first order per user", "Subquery order_by()[:1] for Min",
     User.objects.annotate(first=Subquery(Order.objects.filter(user=OuterRef("pk")).order_by("placed_at").values("placed_at")[:1])).values("id", "first"),
     User.objects.annotate(first=Min("order__placed_at")).values("id", "first"), False),
    ("largest order per user", "Subquery Max for annotate Max",
     User.objects.annotate(m=Subquery(Order.objects.filter(user=OuterRef("pk")).values("user").annotate(m=Max("total")).values("m"))).values("id", "m"),
     User.objects.annotate(m=Max("order__total")).values("id", "m"), False),

    # dates
    ("posts of 2024", "__year for a half-open range",
     Post.objects.filter(created_at__year=2024).values("id"),
     Post.objects.filter(created_at__gte=T2024, created_at__lt=T2025).values("id"), False),
    ("orders in a window", "__range for gte/lte",
     Order.objects.filter(placed_at__range=(T0, T1)).values("id"),
     Order.objects.filter(placed_at__gte=T0, placed_at__lte=T1).values("id"), False),

    # text
    ("titles starting SQL", "__startswith for Left() =",
     Post.objects.filter(title__startswith="SQL").values("id"),
     Post.objects.annotate(p=Left("title", 3)).filter(p="SQL").values("id"), False),
    ("titles starting SQL", "__startswith of a Value for a literal",
     Post.objects.filter(title__startswith=Value("SQL")).values("id"),
     Post.objects.filter(title__startswith="SQL").values("id"), False),
    ("slugs starting with the title", "__startswith=F() with duplicate filter",
     Post.objects.filter(slug__startswith="go", slug__contains="go").values("id"),
     Post.objects.filter(slug__startswith="go").values("id"), False),
    ("exact titles", "__exact for __in of one",
     Post.objects.filter(title="SQL").values("id"),
     Post.objects.filter(title__in=["SQL"]).values("id"), False),

    # jsonb
    ("posts with a kind", "has_key for has_keys of one",
     PostMeta.objects.filter(metadata__has_key="kind").values("id"),
     PostMeta.objects.filter(metadata__has_keys=["kind"]).values("id"), False),

    # in lists and ranges
    ("users by id list", "__in list reordered",
     User.objects.filter(id__in=[3, 1, 2]).values("id"),
     User.objects.filter(id__in=[1, 2, 3, 2]).values("id"), False),
    ("mid views", "__range for gte & lte",
     Post.objects.filter(views__range=(10, 100)).values("id"),
     Post.objects.filter(views__gte=10, views__lte=100).values("id"), False),
    ("paid or shipped", "__in for Q | Q",
     Order.objects.filter(state__in=["paid", "shipped"]).values("id"),
     Order.objects.filter(Q(state="paid") | Q(state="shipped")).values("id"), False),

    # ordered slices
    ("top posts", "nulls_last on a NOT NULL column",
     Post.objects.order_by("-views", "id").values("id", "views")[:5],
     Post.objects.order_by(F("views").desc(nulls_last=True), "id").values("id", "views")[:5], True),
    ("newest published", "order_by on the key for the creation time's order and the key",
     Post.objects.filter(status="published").order_by("-id").values("id")[:3],
     Post.objects.filter(status="published").order_by("-id", "-created_at").values("id")[:3], True),

    # more relations
    ("published posts with a date", "redundant isnull",
     Post.objects.filter(published_at__isnull=False, published_at__lte=T1).values("id"),
     Post.objects.filter(published_at__lte=T1).values("id"), False),
    ("authors", "join and distinct() for Exists()",
     User.objects.filter(post__isnull=False).distinct().values("id"),
     User.objects.filter(Exists(Post.objects.filter(author=OuterRef("pk")))).values("id"), False),
    ("comments on staff posts", "two-hop join for __in",
     Comment.objects.filter(post__author__is_staff=True).values("id"),
     Comment.objects.filter(post__in=Post.objects.filter(author__is_staff=True)).values("id"), False),
]

if __name__ == "__main__":
    out = sys.stdout
    n = 0
    for op, change, ref, cand, ordered in PAIRS:
        a, b = text(ref), text(cand)
        if a == b:
            print("identical, left out: %s (%s)" % (op, change), file=sys.stderr)
            continue
        out.write(json.dumps({"id": "upgrade-%02d" % n, "op": op, "change": change, "reference": a,
                              "candidate": b, "ordered": ordered}) + "\n")
        n += 1

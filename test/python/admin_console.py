"""Reads the pgequiv admin console with psycopg2 in its default mode
(every statement inside a transaction psycopg2 opens with BEGIN).
Connection settings come from PGHOST/PGPORT/PGUSER/PGPASSWORD; prints one
JSON object that proxy/admin_drivers_test.go checks."""
import json

import psycopg2

conn = psycopg2.connect(dbname="pgequiv", sslmode="disable")
out = {}
with conn.cursor() as cur:
    cur.execute("SHOW STATS")
    rows = cur.fetchall()
    out["stats"] = {name: value for name, value in rows}
    out["stats_value_type"] = type(rows[0][1]).__name__
    cur.execute("SHOW VERDICTS WHERE label = %s", ("equivalent",))
    names = [d[0] for d in cur.description]
    out["verdicts"] = [
        {"label": r[names.index("label")], "score_type": type(r[names.index("score")]).__name__,
         "time_type": type(r[names.index("time")]).__name__, "reference": r[names.index("reference")]}
        for r in cur.fetchall()
    ]
    cur.execute("SHOW DIVERGENCES")
    names = [d[0] for d in cur.description]
    out["divergences"] = [
        {"label": r[names.index("label")], "count": r[names.index("count")],
         "count_type": type(r[names.index("count")]).__name__}
        for r in cur.fetchall()
    ]
conn.commit()
conn.close()
print(json.dumps(out))

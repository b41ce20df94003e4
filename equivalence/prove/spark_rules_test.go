package prove_test

import (
	"testing"
)

const empDDL = `
CREATE TABLE dept (deptno integer PRIMARY KEY NOT NULL, name varchar(10) NOT NULL);
CREATE TABLE emp (empno integer PRIMARY KEY NOT NULL, ename varchar(20) NOT NULL, job varchar(10) NOT NULL,
  mgr integer, sal integer NOT NULL, deptno integer NOT NULL REFERENCES dept (deptno));
CREATE TABLE t (k0 varchar(20) NOT NULL, c1 varchar(20), f0_c1 integer NOT NULL, f1_c2 integer NOT NULL);
`

// TestSparkRules: window calls, filters over constant VALUES, a LIMIT 1
// constant subquery tested for NULL, and a semi-/anti-joined sub-block
// left without a relation. Each "false" row differs on some database
// (another window call, partition or frame; a row a filter keeps or drops
// otherwise; a subquery value that can be NULL or fail on two rows; a
// projection without the key; NOT over a NULL), so a proof of it would be
// wrong; unseen says why the executor cannot show a difference it has.
func TestSparkRules(t *testing.T) {
	cases := []ruleCase{
		{name: "nth_value 1 is first_value",
			a:    "SELECT FIRST_VALUE(deptno) OVER (PARTITION BY job ORDER BY ename, empno ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM emp",
			b:    "SELECT NTH_VALUE(deptno, 1) OVER (PARTITION BY job ORDER BY ename, empno ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM emp",
			want: true, rule: "nth-value-first"},
		{name: "partition columns in another order",
			a:    "SELECT empno, SUM(sal) OVER (PARTITION BY deptno, job) FROM emp",
			b:    "SELECT empno, SUM(sal) OVER (PARTITION BY job, deptno) FROM emp",
			want: true, rule: "window-same"},
		{name: "nth_value 2",
			a: "SELECT FIRST_VALUE(sal) OVER (PARTITION BY deptno ORDER BY empno) FROM emp",
			b: "SELECT NTH_VALUE(sal, 2) OVER (PARTITION BY deptno ORDER BY empno) FROM emp"},
		{name: "last_value",
			a: "SELECT empno, FIRST_VALUE(sal) OVER (PARTITION BY deptno ORDER BY empno) FROM emp",
			b: "SELECT empno, LAST_VALUE(sal) OVER (PARTITION BY deptno ORDER BY empno) FROM emp"},
		{name: "another partition",
			a: "SELECT empno, SUM(sal) OVER (PARTITION BY deptno) FROM emp",
			b: "SELECT empno, SUM(sal) OVER (PARTITION BY job) FROM emp"},
		{name: "another frame",
			a: "SELECT empno, FIRST_VALUE(sal) OVER (PARTITION BY deptno ORDER BY empno) FROM emp",
			b: "SELECT empno, FIRST_VALUE(sal) OVER (PARTITION BY deptno ORDER BY empno ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) FROM emp"},
		{name: "filter over values",
			a:    "SELECT * FROM (VALUES (1, 2), (3, 3)) AS t0(c1, c2) WHERE t0.c1 = t0.c2",
			b:    "SELECT * FROM (VALUES (3, 3)) AS t0(c1, c2)",
			want: true, rule: "filter-values"},
		{name: "filter over values keeps the other row",
			a: "SELECT * FROM (VALUES (1, 2), (3, 3)) AS t0(c1, c2) WHERE t0.c1 = t0.c2",
			b: "SELECT * FROM (VALUES (1, 2)) AS t0(c1, c2)"},
		{name: "filter over values drops a NULL comparison",
			a: "SELECT * FROM (VALUES (1, NULL), (2, 3)) AS t0(c1, c2) WHERE t0.c1 < t0.c2",
			b: "SELECT * FROM (VALUES (1, NULL), (2, 3)) AS t0(c1, c2)"},
		{name: "limit 1 constant is not null",
			a:    "SELECT * FROM dept WHERE EXISTS (SELECT f0_c1 FROM t WHERE f1_c2 > 10)",
			b:    "SELECT * FROM dept WHERE (SELECT 1 FROM (SELECT f0_c1 FROM t WHERE f1_c2 > 10) t0 LIMIT 1) IS NOT NULL",
			want: true, rule: "exists-limit-null"},
		{name: "limit 1 constant is null",
			a:    "SELECT * FROM dept WHERE NOT EXISTS (SELECT 1 FROM t WHERE f1_c2 > 10)",
			b:    "SELECT * FROM dept WHERE (SELECT 1 FROM t WHERE f1_c2 > 10 LIMIT 1) IS NULL",
			want: true, rule: "exists-limit-null"},
		{name: "limit 1 of a nullable column",
			a:      "SELECT * FROM dept WHERE EXISTS (SELECT 1 FROM t)",
			b:      "SELECT * FROM dept WHERE (SELECT c1 FROM t LIMIT 1) IS NOT NULL",
			unseen: "the first row PostgreSQL reads is not the executor's"},
		{name: "null constant",
			a: "SELECT * FROM dept WHERE NOT EXISTS (SELECT 1 FROM t)",
			b: "SELECT * FROM dept WHERE (SELECT NULL FROM t LIMIT 1) IS NULL"},
		{name: "no limit",
			a:      "SELECT * FROM dept WHERE EXISTS (SELECT 1 FROM t)",
			b:      "SELECT * FROM dept WHERE (SELECT 1 FROM t) IS NOT NULL",
			unseen: "the scalar subquery fails on two rows, an error the refuter does not count as a difference"},
		{name: "except of filters of a keyed table",
			a:    "SELECT * FROM emp WHERE empno > 0 EXCEPT SELECT * FROM emp WHERE empno < 10",
			b:    "SELECT DISTINCT * FROM emp WHERE empno > 0 AND NOT COALESCE(empno < 10, FALSE)",
			want: true, rule: "leafless-anti"},
		{name: "except without the key",
			a: "SELECT deptno FROM emp WHERE empno > 0 EXCEPT SELECT deptno FROM emp WHERE empno < 10",
			b: "SELECT DISTINCT deptno FROM emp WHERE empno > 0 AND NOT COALESCE(empno < 10, FALSE)"},
		{name: "exists on the key",
			a:    "SELECT * FROM emp e WHERE EXISTS (SELECT 1 FROM emp e2 WHERE e2.empno = e.empno AND e2.sal > 10)",
			b:    "SELECT * FROM emp WHERE sal > 10",
			want: true, rule: "self-join-on-key: emp"},
		{name: "not exists on the key",
			a:    "SELECT * FROM emp e WHERE NOT EXISTS (SELECT 1 FROM emp e2 WHERE e2.empno = e.empno AND e2.mgr > 10)",
			b:    "SELECT * FROM emp WHERE (mgr > 10) IS NOT TRUE",
			want: true, rule: "leafless-anti"},
		{name: "not exists is not NOT",
			a: "SELECT * FROM emp e WHERE NOT EXISTS (SELECT 1 FROM emp e2 WHERE e2.empno = e.empno AND e2.mgr > 10)",
			b: "SELECT * FROM emp WHERE NOT (mgr > 10)"},
	}
	runRuleCases(t, empDDL, cases)
}

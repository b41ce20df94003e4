package exec_test

// constructQueries exercise planner constructs the shared cases and
// prover suites rarely or never use: grouping sets, GROUPING(), LATERAL
// subqueries, and the less common aggregates. TestDifferentialPostgres
// runs them over the curated cases' schema.
var constructQueries = []string{
	// GROUPING SETS, ROLLUP, CUBE and GROUPING().
	"SELECT owner_id, breed_code, count(*) FROM dogs GROUP BY ROLLUP(owner_id, breed_code)",
	"SELECT owner_id, breed_code, count(*), grouping(owner_id, breed_code) FROM dogs GROUP BY CUBE(owner_id, breed_code)",
	"SELECT breed_code, age, sum(weight) FROM dogs GROUP BY GROUPING SETS ((breed_code), (age), ())",
	"SELECT breed_code, age, count(name) FROM dogs WHERE age > 2 GROUP BY GROUPING SETS ((breed_code, age), (breed_code), (breed_code))",
	"SELECT breed_code, count(*) FROM dogs GROUP BY DISTINCT GROUPING SETS ((breed_code), (breed_code), ())",
	"SELECT breed_code, count(*) FROM dogs GROUP BY GROUPING SETS ((breed_code), (breed_code), ())",
	"SELECT owner_id, age, max(weight), grouping(age) FROM dogs GROUP BY owner_id, ROLLUP(age) HAVING count(*) > 1",
	"SELECT owner_id, grouping(owner_id), count(*) FROM dogs GROUP BY owner_id",
	"SELECT count(*) FROM dogs WHERE age > 100 GROUP BY ROLLUP(owner_id)",
	"SELECT count(*) FROM dogs GROUP BY ()",
	"SELECT age + 1, count(*) FROM dogs GROUP BY ROLLUP(age + 1) ORDER BY 1 NULLS FIRST",
	"SELECT o.city, d.breed_code, sum(t.cost), grouping(o.city, d.breed_code) FROM owners o JOIN dogs d ON d.owner_id = o.owner_id JOIN treatments t ON t.dog_id = d.dog_id GROUP BY CUBE(o.city, d.breed_code)",
	"SELECT city, count(*) FROM owners GROUP BY ROLLUP(city) ORDER BY grouping(city), city",
	"SELECT breed_code, (SELECT count(*) FROM dogs d2 WHERE d2.breed_code = d.breed_code) FROM dogs d GROUP BY ROLLUP(breed_code)",
	"SELECT DISTINCT owner_id FROM dogs GROUP BY GROUPING SETS ((owner_id), (owner_id, age))",
	"SELECT owner_id, count(*), rank() OVER (ORDER BY count(*) DESC) FROM dogs GROUP BY ROLLUP(owner_id)",
	"SELECT o.city, (SELECT count(*) FROM (SELECT breed_code FROM dogs d WHERE d.owner_id = o.owner_id GROUP BY ROLLUP(breed_code)) s) FROM owners o",
	"WITH r AS (SELECT owner_id, breed_code, sum(age) AS s FROM dogs GROUP BY CUBE(owner_id, breed_code)) SELECT count(*), sum(s) FROM r WHERE owner_id IS NULL",
	"SELECT owner_id, count(*) FILTER (WHERE age > 2), count(DISTINCT breed_code) FROM dogs GROUP BY ROLLUP(owner_id) HAVING grouping(owner_id) = 1 OR count(*) > 1",
	// LATERAL subqueries with outer references.
	"SELECT d.name, x.c FROM dogs d JOIN LATERAL (SELECT count(*) AS c FROM treatments t WHERE t.dog_id = d.dog_id) x ON true",
	"SELECT d.name, x.c, x.m FROM dogs d LEFT JOIN LATERAL (SELECT count(*) AS c, max(t.cost) AS m FROM treatments t WHERE t.dog_id = d.dog_id) x ON x.c > 0",
	"SELECT d.name, x.m FROM dogs d CROSS JOIN LATERAL (SELECT max(t.cost) AS m FROM treatments t WHERE t.dog_id = d.dog_id) x WHERE x.m > 10",
	"SELECT d.name, t.cost FROM dogs d JOIN LATERAL (SELECT t.cost FROM treatments t WHERE t.dog_id = d.dog_id) t ON true",
	"SELECT d.name, t.cost FROM dogs d LEFT JOIN LATERAL (SELECT t.cost, t.treated_on FROM treatments t WHERE t.dog_id = d.dog_id AND t.cost > d.age) t ON t.treated_on IS NOT NULL",
	"SELECT o.first_name, x.name FROM owners o, LATERAL (SELECT d.name, d.age + o.owner_id AS s FROM dogs d WHERE d.owner_id = o.owner_id AND d.age > 2) x",
	"SELECT o.first_name, x.n FROM owners o JOIN dogs d ON d.owner_id = o.owner_id JOIN LATERAL (SELECT o.last_name || d.name AS n) x ON true",
	"SELECT * FROM dogs d LEFT JOIN LATERAL (SELECT 1 AS one) x ON d.age > 3",
	"SELECT o.owner_id, (SELECT max(x.c) FROM dogs d JOIN LATERAL (SELECT count(*) AS c FROM treatments t WHERE t.dog_id = d.dog_id AND t.cost > o.owner_id) x ON true WHERE d.owner_id = o.owner_id) FROM owners o",
	"SELECT d.name, x.total FROM dogs d LEFT JOIN LATERAL (SELECT sum(t.cost) AS total FROM treatments t WHERE t.dog_id = d.dog_id HAVING count(*) > 0) x ON true",
	"SELECT d.name, x.c FROM dogs d, LATERAL (SELECT count(*) AS c FROM treatments t WHERE t.dog_id = d.dog_id) x WHERE x.c = 0",
	"SELECT d.name, x.total FROM dogs d JOIN LATERAL (SELECT sum(t.cost) AS total FROM treatments t WHERE t.dog_id = d.dog_id HAVING count(*) > 1) x ON true",
	"SELECT d.name, x.cost FROM dogs d LEFT JOIN LATERAL (SELECT t.cost FROM treatments t WHERE t.dog_id = d.dog_id ORDER BY t.cost DESC, t.treatment_id LIMIT 1) x ON true",
	"SELECT d.name, x.cost FROM dogs d JOIN LATERAL (SELECT t.cost FROM treatments t WHERE t.dog_id = d.dog_id ORDER BY t.cost, t.treatment_id LIMIT 1) x ON x.cost > 5",
	// LATERAL subqueries with outer references in a VALUES list's rows
	// or in the conditions of an inner or left join chain.
	"SELECT d.name, x.v FROM dogs d, LATERAL (VALUES (d.age), (d.age + 1), (NULL)) x(v)",
	"SELECT d.name, x.v FROM dogs d JOIN LATERAL (SELECT v.v * 2 AS v FROM (VALUES (d.age), (d.dog_id)) v(v) WHERE v.v > 1) x ON x.v < 10",
	"SELECT o.owner_id, x.name, x.cost FROM owners o, LATERAL (SELECT d.name, t.cost FROM dogs d LEFT JOIN treatments t ON t.dog_id = d.dog_id AND t.cost > o.owner_id) x",
	"SELECT o.owner_id, x.name FROM owners o CROSS JOIN LATERAL (SELECT d.name, t.cost FROM dogs d LEFT JOIN treatments t ON d.owner_id = o.owner_id WHERE d.age > o.owner_id) x",
	"SELECT o.owner_id, x.name, x.tid FROM owners o, LATERAL (SELECT d.name, t.treatment_id AS tid FROM dogs d JOIN treatments t ON t.dog_id = d.dog_id AND d.owner_id = o.owner_id LEFT JOIN professionals p ON p.professional_id = t.professional_id AND p.city = o.city) x",
	// Aggregates.
	"SELECT owner_id, bit_and(age), bit_or(age), bit_xor(age) FROM dogs GROUP BY owner_id",
	"SELECT breed_code, bool_and(age > 3), bool_or(age > 3), every(weight > 10) FROM dogs GROUP BY breed_code",
	"SELECT bit_and(age) FILTER (WHERE age > 2), bool_or(name IS NULL) FROM dogs",
	"SELECT owner_id, string_agg(name, ', ') FROM dogs GROUP BY owner_id",
	"SELECT string_agg(DISTINCT city, ';') FROM owners",
	// Window frames, navigation and distribution functions.
	"SELECT dog_id, sum(age) OVER (ORDER BY dog_id ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM dogs",
	"SELECT dog_id, sum(age) OVER (ORDER BY dog_id ROWS BETWEEN 2 PRECEDING AND 1 FOLLOWING) FROM dogs",
	"SELECT dog_id, count(*) OVER (PARTITION BY owner_id ORDER BY dog_id ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) FROM dogs",
	"SELECT dog_id, max(weight) OVER (ORDER BY age RANGE BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) FROM dogs",
	"SELECT dog_id, min(age) OVER (ORDER BY age RANGE BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) FROM dogs",
	"SELECT dog_id, sum(age) OVER (ORDER BY age ROWS UNBOUNDED PRECEDING) FROM dogs",
	"SELECT dog_id, first_value(name) OVER (PARTITION BY owner_id ORDER BY dog_id) FROM dogs",
	"SELECT dog_id, last_value(name) OVER (PARTITION BY owner_id ORDER BY dog_id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) FROM dogs",
	"SELECT dog_id, nth_value(age, 2) OVER (ORDER BY dog_id ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM dogs",
	"SELECT dog_id, lag(age) OVER (ORDER BY dog_id), lead(age, 2, -1) OVER (PARTITION BY owner_id ORDER BY dog_id) FROM dogs",
	"SELECT dog_id, lag(name, 1, 'none') OVER (ORDER BY age, dog_id) FROM dogs",
	"SELECT dog_id, percent_rank() OVER (ORDER BY age), cume_dist() OVER (PARTITION BY owner_id ORDER BY age) FROM dogs",
	"SELECT dog_id, ntile(3) OVER (ORDER BY dog_id) FROM dogs",
	"SELECT dog_id, first_value(age) OVER (ORDER BY age) FROM dogs",
	"SELECT owner_id, count(*), rank() OVER (ORDER BY count(*) DESC), sum(sum(age)) OVER () FROM dogs GROUP BY owner_id",
	// Text and date functions.
	"SELECT substr(name, 2), substring(name from 1 for 2), substr(name, 0, 3), substr(name, -1, 4) FROM dogs",
	"SELECT substring(city, 2, 1) FROM owners WHERE substr(city, 1, 1) = 'P'",
	"SELECT name FROM dogs WHERE date_of_birth < date('2020-06-01')",
	"SELECT name FROM dogs WHERE date_of_birth >= date('2020-01-01 +08') AND date_of_birth < date('2021-01-01')",
	// Casts with type modifiers.
	"SELECT CAST(weight AS numeric(10,2)), CAST(weight AS decimal(21,7)), CAST(age AS numeric(4,1)), weight::numeric(5) FROM dogs",
	"SELECT CAST(weight AS numeric(2,1)) FROM dogs",
	"SELECT CAST(name AS varchar(2)), 'abcdef'::varchar(3), CAST(age AS varchar(1)) FROM dogs",
}

// liteConstructQueries are the SQLite counterparts, run over the same
// schema by TestDifferentialSQLite.
var liteConstructQueries = []string{
	"SELECT substr(name, 2), substr(name, 0, 3), substr(name, -2), substr(name, -1, 4), substr(name, 3, -2), substr(name, 0), substr(age, 1, 1) FROM dogs",
	"SELECT substr(city, 2, 1) FROM owners WHERE substr(city, 1, 1) = 'P'",
	"SELECT name FROM dogs WHERE date(date_of_birth) < '2020-06-01'",
	"SELECT date(date_of_birth), count(*) FROM dogs GROUP BY date(date_of_birth)",
	"SELECT owner_id, group_concat(name) FROM dogs GROUP BY owner_id",
	"SELECT owner_id, group_concat(name, '; ') FROM dogs GROUP BY owner_id",
	"SELECT owner_id, total(age), total(weight) FROM dogs GROUP BY owner_id",
	"SELECT total(age) FROM dogs WHERE age > 100",
	"SELECT dog_id, sum(age) OVER (ORDER BY dog_id ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM dogs",
	"SELECT dog_id, count(*) OVER (PARTITION BY owner_id ORDER BY dog_id ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) FROM dogs",
	"SELECT dog_id, first_value(name) OVER (PARTITION BY owner_id ORDER BY dog_id) FROM dogs",
	"SELECT dog_id, lag(age) OVER (ORDER BY dog_id), lead(age, 2, -1) OVER (PARTITION BY owner_id ORDER BY dog_id) FROM dogs",
	"SELECT dog_id, nth_value(age, 2) OVER (ORDER BY dog_id ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM dogs",
	"SELECT dog_id, percent_rank() OVER (ORDER BY age), cume_dist() OVER (PARTITION BY owner_id ORDER BY age), ntile(3) OVER (ORDER BY dog_id) FROM dogs",
}

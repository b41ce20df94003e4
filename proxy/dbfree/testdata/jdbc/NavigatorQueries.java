import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

// NavigatorQueries runs, through pgjdbc as prepared statements, the
// catalog queries DBeaver sends to fill its navigator (database,
// schemas, tables, columns, a type), as DBeaver writes them, and
// Metabase's table listing, and prints
// the columns that do not depend on OID numbering, one line per row,
// sorted within each query. Usage: java -cp postgresql.jar:. NavigatorQueries jdbc-url
public class NavigatorQueries {
    static Connection c;

    public static void main(String[] args) throws Exception {
        c = DriverManager.getConnection(args[0]);
        run("searchPath", "SELECT reset_val FROM pg_settings WHERE name = 'search_path'", null, "reset_val");
        run("currentSchema", "SELECT current_schema(),session_user", null, "current_schema", "session_user");
        run("database", "SELECT db.oid,db.* FROM pg_catalog.pg_database db WHERE datname=?", c.getCatalog(),
            "datname", "datallowconn", "datistemplate");
        String ns = run("schemas", "SELECT n.oid,n.*,d.description FROM pg_catalog.pg_namespace n\n"
            + "LEFT OUTER JOIN pg_catalog.pg_description d ON d.objoid=n.oid AND d.objsubid=0 AND d.classoid='pg_namespace'::regclass\n"
            + " ORDER BY nspname", null, "nspname");
        Long public_ = Long.valueOf(ns);
        run("tables", "SELECT c.oid,c.*,d.description,pg_catalog.pg_get_expr(c.relpartbound, c.oid) as partition_expr,  "
            + "pg_catalog.pg_get_partkeydef(c.oid) as partition_key \nFROM pg_catalog.pg_class c\n"
            + "LEFT OUTER JOIN pg_catalog.pg_description d ON d.objoid=c.oid AND d.objsubid=0 AND d.classoid='pg_class'::regclass\n"
            + "WHERE c.relnamespace=? AND c.relkind not in ('i','I','c')", public_,
            "relname", "relkind", "relnatts", "relhasindex", "relpersistence", "description", "partition_expr", "partition_key");
        run("columns", "SELECT c.relname,a.*,pg_catalog.pg_get_expr(ad.adbin, ad.adrelid, true) as def_value,dsc.description,dep.objid\n"
            + "FROM pg_catalog.pg_attribute a\nINNER JOIN pg_catalog.pg_class c ON (a.attrelid=c.oid)\n"
            + "LEFT OUTER JOIN pg_catalog.pg_attrdef ad ON (a.attrelid=ad.adrelid AND a.attnum = ad.adnum)\n"
            + "LEFT OUTER JOIN pg_catalog.pg_description dsc ON (c.oid=dsc.objoid AND a.attnum = dsc.objsubid)\n"
            + "LEFT OUTER JOIN pg_depend dep on dep.refobjid = a.attrelid AND dep.deptype = 'i' and dep.refobjsubid = a.attnum and dep.classid = dep.refclassid\n"
            + "WHERE NOT a.attisdropped AND c.relkind not in ('i','I','c') AND c.relnamespace=? ORDER BY a.attnum", public_,
            "relname", "attnum", "attname", "atttypid", "atttypmod", "attnotnull", "def_value", "description", "objid");
        run("type", "SELECT t.oid,t.*,c.relkind,format_type(nullif(t.typbasetype, 0), t.typtypmod) as base_type_name FROM pg_catalog.pg_type t\n"
            + "LEFT OUTER JOIN pg_class c ON c.oid=t.typrelid\nLEFT OUTER JOIN pg_catalog.pg_description d ON t.oid=d.objoid\nWHERE t.oid=? ", 25L,
            "typname", "typtype", "typcategory", "typlen", "relkind", "base_type_name");
        // Metabase's table listing (metabase.driver.postgres/get-tables-sql
        // as HoneySQL renders it), its parameters bound by setString.
        runParams("metabaseTables", "SELECT n.nspname AS schema, c.relname AS name, CASE c.relkind WHEN 'r' THEN 'TABLE' "
            + "WHEN 'p' THEN 'PARTITIONED TABLE' WHEN 'v' THEN 'VIEW' WHEN 'f' THEN 'FOREIGN TABLE' WHEN 'm' THEN 'MATERIALIZED VIEW' "
            + "ELSE NULL END AS type, d.description AS description, stat.n_live_tup AS estimated_row_count "
            + "FROM pg_catalog.pg_class AS c INNER JOIN pg_catalog.pg_namespace AS n ON c.relnamespace = n.oid "
            + "LEFT JOIN pg_catalog.pg_description AS d ON (c.oid = d.objoid) AND (d.objsubid = 0) AND (d.classoid = 'pg_class'::regclass) "
            + "LEFT JOIN pg_stat_user_tables AS stat ON (n.nspname = stat.schemaname) AND (c.relname = stat.relname) "
            + "WHERE (c.relnamespace = n.oid) AND (n.nspname !~ ?) AND (n.nspname <> ?) AND c.relkind in ('r', 'p', 'v', 'f', 'm') "
            + "AND (n.nspname IN (?)) ORDER BY type ASC, schema ASC, name ASC",
            new String[] {"^pg_", "information_schema", "public"}, "schema", "name", "type", "description", "estimated_row_count");
        c.close();
    }

    // runParams prints the rows of sql with string parameters, in the
    // order the query gives them.
    static void runParams(String name, String sql, String[] params, String... cols) {
        List<String> lines = new ArrayList<>();
        try (PreparedStatement st = c.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                st.setString(i + 1, params[i]);
            }
            try (ResultSet rs = st.executeQuery()) {
                while (rs.next()) {
                    StringBuilder b = new StringBuilder(name);
                    for (String col : cols) {
                        b.append(' ').append(col).append('=').append(rs.getString(col));
                    }
                    lines.add(b.toString());
                }
            }
        } catch (SQLException e) {
            lines.add(name + " ERROR " + e.getMessage().replace('\n', ' '));
        }
        if (lines.isEmpty()) {
            lines.add(name + " (no rows)");
        }
        for (String l : lines) {
            System.out.println(l);
        }
    }

    // run prints the rows of sql with param bound (a Long or a String) and
    // returns the oid of the row whose nspname is public, if any.
    static String run(String name, String sql, Object param, String... cols) {
        List<String> lines = new ArrayList<>();
        String publicOid = null;
        try (PreparedStatement st = c.prepareStatement(sql)) {
            if (param instanceof Long l) {
                st.setLong(1, l);
            } else if (param != null) {
                st.setString(1, (String) param);
            }
            try (ResultSet rs = st.executeQuery()) {
                while (rs.next()) {
                    StringBuilder b = new StringBuilder(name);
                    for (String col : cols) {
                        b.append(' ').append(col).append('=').append(rs.getString(col));
                    }
                    lines.add(b.toString());
                    if ("schemas".equals(name) && "public".equals(rs.getString("nspname"))) {
                        publicOid = rs.getString("oid");
                    }
                }
            }
        } catch (SQLException e) {
            lines.add(name + " ERROR " + e.getMessage().replace('\n', ' '));
        }
        Collections.sort(lines);
        if (lines.isEmpty()) {
            lines.add(name + " (no rows)");
        }
        for (String l : lines) {
            System.out.println(l);
        }
        return publicOid;
    }
}

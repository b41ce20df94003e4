import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

// MetaDump prints what pgjdbc's DatabaseMetaData answers, one line per
// row, sorted within each call, so that a Go test can compare the output
// of database-free mode with the schema (and with a real PostgreSQL).
// Usage: java -cp postgresql.jar:. MetaDump jdbc-url
// A call that fails prints "<call> ERROR <message>" and the program goes
// on, so that one failure does not hide the others.
public class MetaDump {
    public static void main(String[] args) throws Exception {
        try (Connection c = DriverManager.getConnection(args[0])) {
            DatabaseMetaData md = c.getMetaData();
            String[] tables = {"breeds", "owners", "dogs", "professionals", "treatments"};
            dump("catalogs", () -> md.getCatalogs(), "TABLE_CAT");
            dump("schemas", () -> md.getSchemas(), "TABLE_SCHEM");
            dump("tables", () -> md.getTables(null, "public", "%", new String[] {"TABLE"}), "TABLE_SCHEM", "TABLE_NAME", "TABLE_TYPE");
            dump("columns", () -> md.getColumns(null, "public", "dogs", "%"),
                 "TABLE_NAME", "ORDINAL_POSITION", "COLUMN_NAME", "TYPE_NAME", "DATA_TYPE", "NULLABLE");
            for (String t : tables) {
                dump("primaryKeys " + t, () -> md.getPrimaryKeys(null, "public", t), "TABLE_NAME", "COLUMN_NAME", "KEY_SEQ", "PK_NAME");
                dump("importedKeys " + t, () -> md.getImportedKeys(null, "public", t),
                     "PKTABLE_NAME", "PKCOLUMN_NAME", "FKTABLE_NAME", "FKCOLUMN_NAME", "KEY_SEQ", "FK_NAME", "PK_NAME");
                dump("exportedKeys " + t, () -> md.getExportedKeys(null, "public", t),
                     "PKTABLE_NAME", "PKCOLUMN_NAME", "FKTABLE_NAME", "FKCOLUMN_NAME", "KEY_SEQ", "FK_NAME");
                dump("indexInfo " + t, () -> md.getIndexInfo(null, "public", t, false, false),
                     "TABLE_NAME", "NON_UNIQUE", "INDEX_NAME", "ORDINAL_POSITION", "COLUMN_NAME");
            }
            dump("tableTypes", () -> md.getTableTypes(), "TABLE_TYPE");
            dump("tablesAll", () -> md.getTables(null, null, "%", new String[] {"TABLE", "PARTITIONED TABLE", "VIEW", "FOREIGN TABLE", "MATERIALIZED VIEW"}), "TABLE_SCHEM", "TABLE_NAME", "TABLE_TYPE", "REMARKS");
            dump("columnsAll", () -> md.getColumns(null, "public", "%", "%"),
                 "TABLE_NAME", "ORDINAL_POSITION", "COLUMN_NAME", "TYPE_NAME", "DATA_TYPE", "COLUMN_SIZE", "DECIMAL_DIGITS", "NULLABLE", "COLUMN_DEF", "IS_AUTOINCREMENT", "IS_GENERATEDCOLUMN");
            dump("crossReference", () -> md.getCrossReference(null, "public", "owners", null, "public", "dogs"),
                 "PKTABLE_NAME", "PKCOLUMN_NAME", "FKTABLE_NAME", "FKCOLUMN_NAME", "KEY_SEQ", "UPDATE_RULE", "DELETE_RULE", "FK_NAME", "PK_NAME", "DEFERRABILITY");
            dump("bestRow", () -> md.getBestRowIdentifier(null, "public", "dogs", java.sql.DatabaseMetaData.bestRowSession, true), "COLUMN_NAME", "DATA_TYPE", "TYPE_NAME");
            dump("versionColumns", () -> md.getVersionColumns(null, "public", "dogs"), "COLUMN_NAME", "DATA_TYPE");
            dump("tablePrivileges", () -> md.getTablePrivileges(null, "public", "dogs"), "TABLE_NAME", "GRANTOR", "GRANTEE", "PRIVILEGE");
            dump("columnPrivileges", () -> md.getColumnPrivileges(null, "public", "dogs", "dog_id"), "COLUMN_NAME", "GRANTEE", "PRIVILEGE");
            dump("procedureColumns", () -> md.getProcedureColumns(null, "public", "%", "%"), "PROCEDURE_NAME", "COLUMN_NAME");
            dump("functions", () -> md.getFunctions(null, "public", "%"), "FUNCTION_NAME");
            dump("udts", () -> md.getUDTs(null, "public", "%", null), "TYPE_NAME", "DATA_TYPE");
            dump("indexInfoUnique", () -> md.getIndexInfo(null, "public", "owners", true, true), "INDEX_NAME", "COLUMN_NAME", "ASC_OR_DESC", "TYPE");
            dump("importedAll", () -> md.getImportedKeys(null, "public", "treatments"), "PKTABLE_NAME", "FKCOLUMN_NAME", "UPDATE_RULE", "DELETE_RULE", "DEFERRABILITY");
            dump("typeInfo", () -> md.getTypeInfo(), "TYPE_NAME", "DATA_TYPE");
            dump("procedures", () -> md.getProcedures(null, "pg_catalog", "lower"), "PROCEDURE_SCHEM", "PROCEDURE_NAME");
            dump("procedures public", () -> md.getProcedures(null, "public", "%"), "PROCEDURE_SCHEM", "PROCEDURE_NAME");
        }
    }

    interface Call {
        ResultSet run() throws SQLException;
    }

    static void dump(String name, Call call, String... cols) {
        List<String> lines = new ArrayList<>();
        try (ResultSet rs = call.run()) {
            while (rs.next()) {
                StringBuilder b = new StringBuilder(name);
                for (String col : cols) {
                    b.append(' ').append(col).append('=').append(rs.getString(col));
                }
                lines.add(b.toString());
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
    }
}

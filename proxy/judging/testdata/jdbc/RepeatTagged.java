import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLWarning;
import java.sql.Statement;

import org.postgresql.PGStatement;

// RepeatTagged executes one PreparedStatement runs times on one connection,
// as an application re-executing a query does: pgjdbc sends Parse, Bind
// and Execute the first prepareThreshold-1 times, then prepares a named
// server-side statement and from then on sends only Bind and Execute.
// After each execution it prints the statement's warnings (pgjdbc turns a
// NOTICE into an SQLWarning on the statement that got it), and at the end
// what PostgreSQL holds prepared for the connection.
//
// Arguments: url sql runs [int parameter]. Output lines:
//   exec <i> server=<true|false> count=<n> notices=<k> <first notice>
//   prepared <name> executions=<generic+custom plans> <statement>
public class RepeatTagged {
    public static void main(String[] args) throws Exception {
        String url = args[0], sql = args[1];
        int runs = Integer.parseInt(args[2]);
        try (Connection c = DriverManager.getConnection(url);
             PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 1; i <= runs; i++) {
                // Whether this execution uses the named statement.
                boolean server = ps.unwrap(PGStatement.class).isUseServerPrepare();
                if (args.length > 3) {
                    ps.setInt(1, Integer.parseInt(args[3]));
                }
                long n;
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    n = rs.getLong(1);
                }
                int k = 0;
                String first = "";
                for (SQLWarning w = ps.getWarnings(); w != null; w = w.getNextWarning()) {
                    if (k++ == 0) {
                        first = w.getMessage();
                    }
                }
                System.out.println("exec " + i + " server=" + server + " count=" + n + " notices=" + k + " " + first);
            }
            try (Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery(
                     "SELECT name, generic_plans + custom_plans, statement FROM pg_prepared_statements ORDER BY name")) {
                while (rs.next()) {
                    System.out.println("prepared " + rs.getString(1) + " executions=" + rs.getLong(2) + " " + rs.getString(3));
                }
            }
        }
    }
}

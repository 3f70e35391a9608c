package io.selcc.cli.tpcc;

import io.selcc.cli.CliRun;
import io.selcc.cli.MiniJson;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What the tests of a kept database check after a run: its last {@code durable=}, then {@code tpcc check}. */
final class KeptDatabaseCheck {
    private static final Pattern DURABLE = Pattern.compile("durable=(\\d+)");

    private KeptDatabaseCheck() {
    }

    /** The last {@code durable=N} in a run's output, 0 if there is none. */
    static long lastDurable(String out) {
        long last = 0;
        for (Matcher m = DURABLE.matcher(out); m.find(); ) {
            last = Long.parseLong(m.group(1));
        }
        return last;
    }

    /**
     * {@code tpcc check --data-dir db --json dir/check.json} in this JVM: exit 0, every condition passes and
     * the orders since the load are at least {@code durable}. Returns those orders.
     */
    static long assertCheckFinds(Path dir, Path db, long durable, String context) throws IOException {
        Path json = dir.resolve("check.json");
        CliRun check = CliRun.of("tpcc", "check", "--data-dir", db.toString(), "--json", json.toString());
        assertEquals(0, check.exitCode(), check + "\n" + context);
        @SuppressWarnings("unchecked")
        Map<String, Object> report = (Map<String, Object>) MiniJson.parse(Files.readString(json));
        long since = ((Number) report.get("ordersSinceLoad")).longValue();
        assertTrue(since >= durable, "ordersSinceLoad " + since + " < last durable=" + durable + "\n" + context);
        assertEquals(Boolean.TRUE, report.get("passed"), check.out());
        return since;
    }
}

package io.selcc.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Bad input exits with 2 and one line on stderr naming the flag and the value; help exits with 0. */
class ExitCodeTest {
    private static final int OK = 0;
    private static final int BAD_INPUT = 2;

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({
        "--access, foo",
        "--compute-nodes, 0",
        "--compute-nodes, 57",
        "--compute-nodes, two",
        "--memory-nodes, 0",
        "--threads, 0",
        "--gcl-size, 1000",
        "--gcl-size, 256",
        "--gcls, 1",
        "--cache, 3XB",
        "--cache, 1",
        "--cache, 2KiB",
        "--read-ratio, 150",
        "--read-ratio, -1",
        "--sharing, 101",
        "--sharing, half",
        "--theta, 1",
        "--theta, -0.5",
        "--theta, NaN",
        "--locality, 100.5",
        "--rtt, 5",
        "--rtt, abc",
        "--gbps, -1",
        "--gbps, fast",
        "--duration, 0",
        "--duration, 10",
        "--warmup, -1s",
        "--seed, x",
        "--fairness, maybe",
        "--writer-nodes, 3",
        "--writer-nodes, -1"})
    void badValueNamesFlagAndValue(String flag, String value) {
        CliRun run = CliRun.of("micro", flag, value);
        assertEquals(BAD_INPUT, run.exitCode(), run.toString());
        assertOneLineNaming(run, flag, value);
        assertTrue(run.out().isEmpty(), "nothing ran: " + run);
    }

    @Test
    void unknownFlag() {
        CliRun run = CliRun.of("micro", "--bogus", "1");
        assertEquals(BAD_INPUT, run.exitCode(), run.toString());
        assertOneLineNaming(run, "--bogus");
    }

    @Test
    void unknownSubcommandAndNoSubcommand() {
        assertEquals(BAD_INPUT, CliRun.of("bogus").exitCode());
        CliRun none = CliRun.of();
        assertEquals(BAD_INPUT, none.exitCode(), none.toString());
        assertOneLineNaming(none, "micro");
    }

    @Test
    void unwritableJsonFailsBeforeTheRun() {
        String file = Path.of("/nonexistent-selcc-dir", "out.json").toString();
        CliRun run = CliRun.of("micro", "--json", file);
        assertEquals(BAD_INPUT, run.exitCode(), run.toString());
        assertOneLineNaming(run, "--json", file);
        assertFalse(run.out().contains("allocating"), "must fail before allocating: " + run);
    }

    @Test
    void jsonPathThatIsADirectory(@org.junit.jupiter.api.io.TempDir Path dir) {
        CliRun run = CliRun.of("micro", "--json", dir.toString());
        assertEquals(BAD_INPUT, run.exitCode(), run.toString());
        assertOneLineNaming(run, "--json", dir.toString(), "directory");
    }

    @Test
    void helpEverywhere() {
        for (String[] args : new String[][] {{"--help"}, {"micro", "--help"}, {"-h"}, {"micro", "-h"}, {"--version"}}) {
            CliRun run = CliRun.of(args);
            assertEquals(OK, run.exitCode(), run.toString());
            assertFalse(run.out().isEmpty(), run.toString());
        }
        CliRun micro = CliRun.of("micro", "--help");
        for (String flag : new String[] {"--access", "--compute-nodes", "--memory-nodes", "--threads", "--gcl-size",
            "--gcls", "--cache", "--read-ratio", "--sharing", "--theta", "--locality", "--rtt", "--gbps", "--duration",
            "--warmup", "--seed", "--json", "--fairness", "--writer-nodes"}) {
            assertTrue(micro.out().contains(flag), "help lacks " + flag);
        }
    }

    /**
     * Picocli formats every description with String.format: a lone '%' prints a warning before each help
     * and the raw text (the --distribution help's "1% remote" did). Planted: that text back, fails here.
     */
    @Test
    void everyDescriptionFormats() {
        java.util.ArrayDeque<picocli.CommandLine> commands = new java.util.ArrayDeque<>();
        commands.add(SelccCli.commandLine());
        int checked = 0;
        while (!commands.isEmpty()) {
            picocli.CommandLine command = commands.poll();
            commands.addAll(command.getSubcommands().values());
            for (var option : command.getCommandSpec().options()) {
                // the annotation's text: picocli's description() has already replaced "%%" by "%"
                if (!(option.userObject() instanceof java.lang.reflect.Field field)) {
                    continue;
                }
                for (String line : field.getAnnotation(picocli.CommandLine.Option.class).description()) {
                    try {
                        String.format(line);
                        checked++;
                    } catch (java.util.IllegalFormatException e) {
                        throw new AssertionError(command.getCommandName() + " " + option.longestName()
                            + ": description is not a format string (escape % as %%): " + line, e);
                    }
                }
            }
        }
        assertTrue(checked > 50, "descriptions checked: " + checked);
    }

    private static void assertOneLineNaming(CliRun run, String... parts) {
        String err = run.err().strip();
        assertFalse(err.contains("\n"), "one line expected: " + run);
        for (String part : parts) {
            assertTrue(err.contains(part), "'" + err + "' lacks '" + part + "'");
        }
    }
}

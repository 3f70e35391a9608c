package io.selcc.cli.tpcc;

import java.util.ArrayList;
import java.util.List;

/** The command line of a child JVM running the CLI from the test's class path, as bin/selcc runs it. */
final class ChildJvm {
    private ChildJvm() {
    }

    /**
     * {@code java <the CLI's JVM options> <jvmOptions> -cp <the test's class path> io.selcc.cli.SelccCli <args>},
     * with this JVM's java.
     */
    static List<String> command(List<String> jvmOptions, List<String> args) {
        List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElseThrow());
        command.addAll(List.of("-Xmx1g", "--enable-native-access=ALL-UNNAMED",
            "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED", "--add-exports=java.base/sun.nio.ch=ALL-UNNAMED",
            "--add-exports=java.base/jdk.internal.ref=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow",
            "-Dchronicle.analytics.disable=true", "-Dchronicle.disk.monitor.disable=true"));
        command.addAll(jvmOptions);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), "io.selcc.cli.SelccCli"));
        command.addAll(args);
        return command;
    }
}

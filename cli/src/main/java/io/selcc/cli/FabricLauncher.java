package io.selcc.cli;

import io.selcc.fabric.Fabric;
import io.selcc.fabric.FabricEndpoint;
import io.selcc.fabric.tcp.ClusterMap;
import io.selcc.fabric.tcp.TcpFabric;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;

/**
 * {@code --fabric tcp}: starts one {@code selcc memory-node} process per memory node on localhost (the
 * same JVM and class path as this one), waits for each one's ready line, and connects a
 * {@link TcpFabric} hosting every compute node of this process. Closing the fabric stops the processes;
 * they also stop when this process ends.
 */
public final class FabricLauncher {
    /** A memory node must say where it listens within this time. */
    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);
    /** Connects and every answer over the fabric. */
    static final Duration FABRIC_TIMEOUT = Duration.ofSeconds(60);
    private static final Pattern READY = Pattern.compile("memory node listening on (.+):(\\d+) with \\d+ bytes");

    /** Processes started so far by this JVM (tests check that a run really started its nodes as processes). */
    private static final java.util.concurrent.atomic.AtomicInteger STARTED = new java.util.concurrent.atomic.AtomicInteger();

    private FabricLauncher() {
    }

    static int processesStarted() {
        return STARTED.get();
    }

    static Fabric launch(ClusterSettings cluster, long bytesPerMemoryNode) {
        List<Process> processes = new ArrayList<>();
        Thread stopper = new Thread(() -> stop(processes), "memory-node-processes-stop");
        Runtime.getRuntime().addShutdownHook(stopper);
        try {
            List<InetSocketAddress> memory = new ArrayList<>();
            for (int j = 0; j < cluster.memoryNodes(); j++) {
                Process p = start(j, bytesPerMemoryNode);
                processes.add(p);
                memory.add(awaitReady(j, p));
            }
            InetSocketAddress any = new InetSocketAddress("127.0.0.1", 0);
            List<InetSocketAddress> compute = IntStream.range(0, cluster.computeNodes()).mapToObj(i -> any).toList();
            Set<Integer> all = Set.copyOf(IntStream.range(0, cluster.computeNodes()).boxed().toList());
            TcpFabric tcp = TcpFabric.connect(new ClusterMap(memory, compute), all, FABRIC_TIMEOUT);
            return new Launched(tcp, processes, stopper);
        } catch (RuntimeException | Error e) {
            stop(processes);
            Runtime.getRuntime().removeShutdownHook(stopper);
            throw e;
        }
    }

    /**
     * {@code --fabric tcp} with every compute node a process of its own (micro): starts the memory nodes,
     * writes a cluster file (free ports on localhost for the compute nodes), and starts compute nodes
     * 1..N-1 running {@code args} with {@code --cluster FILE --node i} in place of {@code --fabric tcp}
     * (and without {@code --json}: node 0 reports). The caller runs as node 0 with the returned map, then
     * closes the returned processes.
     */
    public static Processes launchCluster(ClusterSettings cluster, long bytesPerMemoryNode, List<String> args, String subcommand) {
        List<Process> processes = new ArrayList<>();
        Thread stopper = new Thread(() -> stop(processes), "selcc-processes-stop");
        Runtime.getRuntime().addShutdownHook(stopper);
        try {
            List<InetSocketAddress> memory = new ArrayList<>();
            for (int j = 0; j < cluster.memoryNodes(); j++) {
                Process p = start(j, bytesPerMemoryNode);
                processes.add(p);
                memory.add(awaitReady(j, p));
            }
            List<InetSocketAddress> compute = new ArrayList<>();
            for (int i = 0; i < cluster.computeNodes(); i++) {
                compute.add(new InetSocketAddress("127.0.0.1", freePort()));
            }
            ClusterMap map = new ClusterMap(memory, compute);
            Path dir = java.nio.file.Files.createTempDirectory("selcc-cluster-");
            Path file = dir.resolve("cluster.properties");
            StringBuilder text = new StringBuilder("# written by selcc --fabric tcp\n");
            for (int j = 0; j < memory.size(); j++) {
                text.append("memory.").append(j).append('=').append(memory.get(j).getHostString()).append(':')
                    .append(memory.get(j).getPort()).append('\n');
            }
            for (int i = 0; i < compute.size(); i++) {
                text.append("compute.").append(i).append("=127.0.0.1:").append(compute.get(i).getPort()).append('\n');
            }
            java.nio.file.Files.writeString(file, text);
            List<String> childArgs = withoutFlags(args, Set.of("--fabric", "--json"));
            List<Process> computeProcesses = new ArrayList<>();
            for (int i = 1; i < cluster.computeNodes(); i++) {
                List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-Xmx1g", "--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow",
                    SelccCli.class.getName(), subcommand));
                command.addAll(childArgs);
                command.addAll(List.of("--cluster", file.toString(), "--node", String.valueOf(i)));
                ProcessBuilder builder = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT)
                    .redirectOutput(dir.resolve("compute-" + i + ".out").toFile());
                builder.environment().put("CLASSPATH", System.getProperty("java.class.path"));
                Process p = builder.start();
                STARTED.incrementAndGet();
                computeProcesses.add(p);
                processes.add(p); // stopped with the rest if a later start fails
            }
            return new Processes(map, computeProcesses, processes, stopper, dir);
        } catch (IOException e) {
            stop(processes);
            Runtime.getRuntime().removeShutdownHook(stopper);
            throw new CliFailure("cannot start the cluster's processes: " + e.getMessage(), e);
        } catch (RuntimeException | Error e) {
            stop(processes);
            Runtime.getRuntime().removeShutdownHook(stopper);
            throw e;
        }
    }

    /**
     * The processes {@link #launchCluster} started. Closing waits (one deadline for all) for the compute
     * nodes, which end on node 0's STOP, then stops everything left, memory nodes included.
     */
    public record Processes(ClusterMap map, List<Process> computeNodes, List<Process> all, Thread stopper, Path dir)
        implements AutoCloseable {
        @Override
        public void close() {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            for (Process p : computeNodes) {
                try {
                    p.waitFor(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            stop(all);
            try {
                Runtime.getRuntime().removeShutdownHook(stopper);
            } catch (IllegalStateException e) {
                // shutting down: the hook stops them too
            }
            try (var files = java.nio.file.Files.list(dir)) {
                for (Path f : files.toList()) {
                    java.nio.file.Files.deleteIfExists(f);
                }
                java.nio.file.Files.deleteIfExists(dir);
            } catch (IOException e) {
                // a temporary directory left behind is not worth failing the run for
            }
        }
    }

    /** {@code args} without {@code flags} and their values ({@code --flag value} or {@code --flag=value}). */
    static List<String> withoutFlags(List<String> args, Set<String> flags) {
        List<String> kept = new ArrayList<>();
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            int eq = a.indexOf('=');
            String name = eq > 0 ? a.substring(0, eq) : a;
            if (flags.contains(name)) {
                if (eq < 0) {
                    i++; // its value
                }
                continue;
            }
            kept.add(a);
        }
        return kept;
    }

    private static int freePort() {
        try (java.net.ServerSocket probe = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return probe.getLocalPort();
        } catch (IOException e) {
            throw new CliFailure("no free port on localhost: " + e.getMessage(), e);
        }
    }

    private static Process start(int memoryNode, long bytes) {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        List<String> command = List.of(java.toString(), "-Xmx256m", "-XX:+UseSerialGC",
            "--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow", SelccCli.class.getName(),
            "memory-node", "--listen", "127.0.0.1:0", "--size", bytes + "B",
            "--exit-with-parent", String.valueOf(ProcessHandle.current().pid()));
        try {
            ProcessBuilder builder = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT);
            // The class path through the environment: a long -cp would push the arguments past what ps shows.
            builder.environment().put("CLASSPATH", System.getProperty("java.class.path"));
            Process p = builder.start();
            STARTED.incrementAndGet();
            return p;
        } catch (IOException e) {
            throw new CliFailure("cannot start memory node " + memoryNode + "'s process: " + e.getMessage(), e);
        }
    }

    /** Reads the child's ready line; its address, or a failure naming what it printed or its exit code. */
    private static InetSocketAddress awaitReady(int memoryNode, Process p) {
        BufferedReader lines = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        CompletableFuture<String> first = CompletableFuture.supplyAsync(() -> {
            try {
                return lines.readLine();
            } catch (IOException e) {
                return null;
            }
        });
        String line;
        try {
            line = first.get(START_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            throw new CliFailure("memory node " + memoryNode + "'s process did not say it listens within "
                + START_TIMEOUT.toSeconds() + " s");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CliFailure("interrupted while memory node " + memoryNode + "'s process started", e);
        } catch (ExecutionException e) {
            throw new CliFailure("memory node " + memoryNode + "'s process: " + e.getCause(), e.getCause());
        }
        Matcher m = line == null ? null : READY.matcher(line);
        if (m == null || !m.matches()) {
            boolean ended;
            try {
                ended = p.waitFor(2, TimeUnit.SECONDS); // it usually just died: say how
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                ended = false;
            }
            String status = ended ? "exit code " + p.exitValue() : "still running";
            throw new CliFailure("memory node " + memoryNode + "'s process did not start (" + status + "): "
                + (line == null ? "it printed nothing" : "it printed '" + line + "'"));
        }
        Thread.ofPlatform().daemon().name("memory-node-" + memoryNode + "-out").start(() -> drain(lines));
        return new InetSocketAddress(m.group(1), Integer.parseInt(m.group(2)));
    }

    private static void drain(BufferedReader lines) {
        try {
            while (lines.readLine() != null) {
                // nothing more is expected; keep the pipe from filling
            }
        } catch (IOException e) {
            // the process ended
        }
    }

    private static void stop(List<Process> processes) {
        for (Process p : processes) {
            p.destroy(); // SIGTERM: its shutdown hook closes the server
        }
        for (Process p : processes) {
            try {
                if (!p.waitFor(10, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                }
            } catch (InterruptedException e) {
                p.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
    }

    /** The TCP fabric plus the processes it runs on: closing it stops them. */
    private static final class Launched implements Fabric {
        private final TcpFabric tcp;
        private final List<Process> processes;
        private final Thread stopper;

        Launched(TcpFabric tcp, List<Process> processes, Thread stopper) {
            this.tcp = tcp;
            this.processes = processes;
            this.stopper = stopper;
        }

        @Override
        public int memoryNodeCount() {
            return tcp.memoryNodeCount();
        }

        @Override
        public long memoryNodeCapacity(int memoryNode) {
            return tcp.memoryNodeCapacity(memoryNode);
        }

        @Override
        public int computeNodeCount() {
            return tcp.computeNodeCount();
        }

        @Override
        public FabricEndpoint endpoint(int computeNode) {
            return tcp.endpoint(computeNode);
        }

        @Override
        public boolean hosts(int computeNode) {
            return tcp.hosts(computeNode);
        }

        @Override
        public void fence(int computeNode) {
            tcp.fence(computeNode);
        }

        @Override
        public boolean fenced(int computeNode) {
            return tcp.fenced(computeNode);
        }

        @Override
        public void close() {
            try {
                tcp.close();
            } finally {
                stop(processes);
                try {
                    Runtime.getRuntime().removeShutdownHook(stopper);
                } catch (IllegalStateException e) {
                    // already shutting down: the hook stops them too
                }
            }
        }
    }
}

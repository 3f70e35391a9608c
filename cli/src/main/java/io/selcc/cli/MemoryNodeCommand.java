package io.selcc.cli;

import io.selcc.fabric.tcp.ClusterMap;
import io.selcc.fabric.tcp.MemoryNodeServer;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * {@code selcc memory-node}: one memory node as a process, serving one-sided verbs over TCP until it is
 * stopped (SIGTERM or SIGINT). It prints one line once it listens: {@code memory node listening on
 * HOST:PORT with BYTES bytes} (port 0 asks for any free port; the line tells which).
 */
@Command(name = "memory-node", mixinStandardHelpOptions = true,
    description = "Serve one memory node over TCP until stopped: passive memory answering READ, WRITE, CAS and FAA"
        + " from compute nodes (--fabric tcp, --cluster). Prints 'memory node listening on HOST:PORT' when ready.")
public final class MemoryNodeCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Option(names = "--listen", paramLabel = "HOST:PORT", required = true,
        description = "Address to listen on; port 0 takes any free port (the ready line names it).")
    private String listen;

    @Option(names = "--size", paramLabel = "BYTES", required = true,
        description = "Memory this node holds, with a unit: e.g. 256MiB, 4GiB (touched pages only are resident).")
    private String size;

    @Option(names = "--exit-with-parent", paramLabel = "PID", hidden = true,
        description = "Stop when process PID ends (a launcher's children do not outlive it).")
    private Long parentPid;

    @Override
    public Integer call() throws Exception {
        CommandLine cl = spec.commandLine();
        InetSocketAddress address;
        try {
            InetSocketAddress parsed = ClusterMap.parseAddress(listen, "--listen");
            address = new InetSocketAddress(parsed.getHostString(), parsed.getPort());
        } catch (IllegalArgumentException e) {
            throw Flags.invalid(cl, "--listen", listen, e.getMessage().replaceFirst("^--listen: ", ""));
        }
        Flags.require(!address.isUnresolved(), cl, "--listen", listen, "host '" + address.getHostString() + "' is unknown");
        long bytes;
        try {
            CacheSize parsed = CacheSize.parse(size);
            Flags.require(parsed.inBytes(), cl, "--size", size, "needs a unit (B, KB, MB, GB, KiB, MiB, GiB), e.g. 256MiB");
            bytes = parsed.amount();
        } catch (IllegalArgumentException e) {
            throw Flags.invalid(cl, "--size", size, "not a size: e.g. 256MiB, 4GiB");
        }
        Flags.require(bytes >= 1 << 20 && bytes % 8 == 0, cl, "--size", size, "must be at least 1MiB and a multiple of 8 bytes");
        MemoryNodeServer server;
        try {
            server = MemoryNodeServer.start(address, bytes);
        } catch (RuntimeException e) {
            // Netty rethrows the bind's IOException unchecked: in use, or not an address of this machine.
            throw Flags.invalid(cl, "--listen", listen, e.getMessage());
        }
        Runtime.getRuntime().addShutdownHook(new Thread(server::close, "memory-node-stop"));
        if (parentPid != null) {
            ProcessHandle.of(parentPid).ifPresentOrElse(parent -> parent.onExit().thenRun(server::close), server::close);
        }
        PrintWriter out = cl.getOut();
        InetSocketAddress bound = server.address();
        out.printf(Locale.ROOT, "memory node listening on %s:%d with %d bytes%n", bound.getHostString(), bound.getPort(), bytes);
        out.flush();
        server.awaitClose();
        return 0;
    }
}

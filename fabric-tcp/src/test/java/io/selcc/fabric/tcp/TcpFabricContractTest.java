package io.selcc.fabric.tcp;

import io.selcc.fabric.Fabric;
import io.selcc.fabric.FabricContractTest;
import org.junit.jupiter.api.AfterEach;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/** The fabric contract over loopback TCP: two memory-node servers, both compute nodes hosted here. */
class TcpFabricContractTest extends FabricContractTest {
    private final List<MemoryNodeServer> servers = new ArrayList<>();

    @Override
    protected Fabric createFabric() {
        try {
            List<InetSocketAddress> memory = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                MemoryNodeServer server = MemoryNodeServer.start(new InetSocketAddress("127.0.0.1", 0), 1 << 20);
                servers.add(server);
                memory.add(server.address());
            }
            InetSocketAddress any = new InetSocketAddress("127.0.0.1", 0);
            return TcpFabric.connect(new ClusterMap(memory, List.of(any, any)), Set.of(0, 1), Duration.ofSeconds(30));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @AfterEach
    void stopServers() {
        for (MemoryNodeServer server : servers) {
            server.close();
        }
    }
}

package io.selcc.fabric.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.selcc.fabric.GlobalAddress;
import io.selcc.fabric.MessageKind;
import io.selcc.fabric.NodeFailedException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Lost memory nodes, bad frames and bad requests: clear errors, never a crashed server or a hung client. */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class TcpFailureTest {
    private static final InetSocketAddress ANY = new InetSocketAddress("127.0.0.1", 0);

    @Test
    void aMemoryNodeThatDiesFailsTheNextVerbSayingItsMemoryIsLost() throws Exception {
        MemoryNodeServer memory = MemoryNodeServer.start(ANY, 1 << 20);
        try (TcpFabric fabric = TcpFabric.connect(new ClusterMap(List.of(memory.address()), List.of(ANY)), Set.of(0),
            Duration.ofSeconds(10))) {
            assertEquals(0, fabric.endpoint(0).remoteFaa(GlobalAddress.of(0, 64), 1));
            memory.close();
            MemoryNodeFailedException e = assertThrows(MemoryNodeFailedException.class, () -> {
                for (int i = 0; i < 1000; i++) { // the loss may be noticed a verb late
                    fabric.endpoint(0).remoteFaa(GlobalAddress.of(0, 64), 1);
                }
            });
            assertEquals(0, e.memoryNode());
            assertTrue(e.getMessage().contains("memory node 0") && e.getMessage().contains("memory is lost"), e.getMessage());
        }
    }

    @Test
    void noMemoryNodeThereIsAClearError() {
        InetSocketAddress nobody = new InetSocketAddress("127.0.0.1", freePort());
        MemoryNodeFailedException e = assertThrows(MemoryNodeFailedException.class,
            () -> TcpFabric.connect(new ClusterMap(List.of(nobody), List.of(ANY)), Set.of(0), Duration.ofSeconds(5)));
        assertTrue(e.getMessage().contains("cannot connect to memory node 0"), e.getMessage());
    }

    @Test
    void aComputeNodeThatIsGoneFailsItsMessagesWithNodeFailed() throws Exception {
        try (MemoryNodeServer memory = MemoryNodeServer.start(ANY, 1 << 20)) {
            InetSocketAddress gone = new InetSocketAddress("127.0.0.1", freePort());
            try (TcpFabric fabric = TcpFabric.connect(new ClusterMap(List.of(memory.address()), List.of(ANY, gone)),
                Set.of(0), Duration.ofSeconds(5))) {
                fabric.endpoint(0).register(MessageKind.INVALIDATION, io.selcc.fabric.FabricContractTest.STRINGS,
                    (from, request, reply) -> reply.reply("unused"));
                NodeFailedException e = assertThrows(NodeFailedException.class,
                    () -> fabric.endpoint(0).call(1, MessageKind.INVALIDATION, "anyone?"));
                assertEquals(1, e.node());
                assertThrows(IllegalArgumentException.class, () -> fabric.endpoint(1), "node 1 runs elsewhere");
            }
        }
    }

    /** Raw frames against the server: every bad one gets an ERROR or a closed connection, and the server lives on. */
    @Test
    void badFramesAreRefusedAndTheServerServesOn() throws Exception {
        try (MemoryNodeServer memory = MemoryNodeServer.start(ANY, 1 << 20)) {
            // A newer protocol version: the connection is closed.
            try (Socket s = connect(memory)) {
                send(s, frame(2, Frame.HELLO, 0, Unpooled.buffer().writeByte(Frame.ROLE_COMPUTE).writeInt(-1)));
                assertClosed(s);
            }
            // A frame over the limit: closed.
            try (Socket s = connect(memory)) {
                ByteBuf header = Unpooled.buffer().writeInt(Frame.MAX_LENGTH + 1).writeByte(Frame.VERSION);
                send(s, header);
                assertClosed(s);
            }
            // VERBS before HELLO: closed.
            try (Socket s = connect(memory)) {
                send(s, frame(Frame.VERSION, Frame.VERBS, 1, Unpooled.buffer().writeInt(0).writeInt(-1).writeInt(0)));
                assertClosed(s);
            }
            try (Socket s = connect(memory)) {
                send(s, frame(Frame.VERSION, Frame.HELLO, 0, Unpooled.buffer().writeByte(Frame.ROLE_COMPUTE).writeInt(-1)));
                assertEquals(Frame.HELLO_OK, readFrame(s)[1]);
                // An address outside the memory node: an ERROR naming it, the connection stays.
                ByteBuf outside = Unpooled.buffer().writeInt(0).writeInt(-1).writeInt(1)
                    .writeByte(io.selcc.fabric.VerbBatch.Kind.FAA.ordinal()).writeLong(GlobalAddress.of(0, 2L << 20)).writeLong(1);
                send(s, frame(Frame.VERSION, Frame.VERBS, 2, outside));
                Object[] error = readFrame(s);
                assertEquals(Frame.ERROR, error[1]);
                assertTrue(((String) error[2]).contains("out of range"), (String) error[2]);
                // An unknown verb kind: an ERROR.
                ByteBuf unknown = Unpooled.buffer().writeInt(0).writeInt(-1).writeInt(1).writeByte(9).writeLong(64);
                send(s, frame(Frame.VERSION, Frame.VERBS, 3, unknown));
                error = readFrame(s);
                assertEquals(Frame.ERROR, error[1]);
                assertTrue(((String) error[2]).contains("unknown kind 9"), (String) error[2]);
                // An unknown frame type: closed.
                send(s, frame(Frame.VERSION, 77, 4, Unpooled.buffer()));
                assertClosed(s);
            }
            // And it still serves a well-behaved client.
            try (TcpFabric fabric = TcpFabric.connect(new ClusterMap(List.of(memory.address()), List.of(ANY)), Set.of(0),
                Duration.ofSeconds(10))) {
                assertEquals(0, fabric.endpoint(0).remoteFaa(GlobalAddress.of(0, 64), 5));
                assertEquals(5, fabric.endpoint(0).remoteFaa(GlobalAddress.of(0, 64), 0));
            }
        }
    }

    /** Raw frames against a compute node: unknown kinds and malformed messages get an ERROR; it answers on. */
    @Test
    void aComputeNodeAnswersBadMessagesWithErrors() throws Exception {
        try (MemoryNodeServer memory = MemoryNodeServer.start(ANY, 1 << 20);
             TcpFabric fabric = TcpFabric.connect(new ClusterMap(List.of(memory.address()), List.of(ANY)), Set.of(0),
                 Duration.ofSeconds(10))) {
            fabric.endpoint(0).register(MessageKind.INVALIDATION, io.selcc.fabric.FabricContractTest.STRINGS,
                (from, request, reply) -> reply.reply("echo " + request));
            InetSocketAddress node = fabric.listenAddress(0);
            try (Socket s = new Socket(node.getAddress(), node.getPort())) {
                s.setSoTimeout(20_000);
                send(s, frame(Frame.VERSION, Frame.HELLO, 0, Unpooled.buffer().writeByte(Frame.ROLE_COMPUTE).writeInt(1)));
                assertEquals(Frame.HELLO_OK, readFrame(s)[1]);
                send(s, frame(Frame.VERSION, Frame.MESSAGE, 1, Unpooled.buffer().writeByte(99)));
                Object[] error = readFrame(s);
                assertEquals(Frame.ERROR, error[1]);
                assertTrue(((String) error[2]).contains("no handler for message kind 99"), (String) error[2]);
                send(s, frame(Frame.VERSION, Frame.MESSAGE, 2,
                    Unpooled.buffer().writeByte(MessageKind.TWO_PHASE_COMMIT.ordinal())));
                error = readFrame(s);
                assertEquals(Frame.ERROR, error[1], "a kind this node does not take");
                // A string whose length says 1000 bytes follow, and 2 do.
                send(s, frame(Frame.VERSION, Frame.MESSAGE, 3,
                    Unpooled.buffer().writeByte(MessageKind.INVALIDATION.ordinal()).writeInt(1000).writeShort(7)));
                error = readFrame(s);
                assertEquals(Frame.ERROR, error[1]);
                assertTrue(((String) error[2]).contains("malformed"), (String) error[2]);
                // And a good one is answered.
                io.selcc.fabric.WireWriter hi = new io.selcc.fabric.WireWriter().putString("hi");
                send(s, frame(Frame.VERSION, Frame.MESSAGE, 4,
                    Unpooled.buffer().writeByte(MessageKind.INVALIDATION.ordinal()).writeBytes(hi.toByteArray())));
                assertEquals(Frame.MESSAGE_REPLY, readFrame(s)[1]);
            }
        }
    }

    private static Socket connect(MemoryNodeServer memory) throws IOException {
        Socket s = new Socket(memory.address().getAddress(), memory.address().getPort());
        s.setSoTimeout(20_000);
        return s;
    }

    private static ByteBuf frame(int version, int type, long id, ByteBuf body) {
        ByteBuf out = Unpooled.buffer();
        out.writeInt(Frame.HEADER_AFTER_LENGTH + body.readableBytes()).writeByte(version).writeByte(type).writeLong(id)
            .writeBytes(body);
        return out;
    }

    private static void send(Socket s, ByteBuf frame) throws IOException {
        byte[] bytes = new byte[frame.readableBytes()];
        frame.readBytes(bytes);
        OutputStream out = s.getOutputStream();
        out.write(bytes);
        out.flush();
    }

    /** {id, type, error reason or null}. */
    private static Object[] readFrame(Socket s) throws IOException {
        DataInputStream in = new DataInputStream(s.getInputStream());
        int length = in.readInt();
        byte[] rest = new byte[length];
        in.readFully(rest);
        ByteBuf b = Unpooled.wrappedBuffer(rest);
        b.readByte();
        int type = b.readUnsignedByte();
        long id = b.readLong();
        String reason = null;
        if (type == Frame.ERROR) {
            b.readByte();
            b.readInt();
            reason = Frame.readString(b);
        }
        return new Object[] {id, type, reason};
    }

    private static void assertClosed(Socket s) throws IOException {
        try {
            int b = s.getInputStream().read();
            assertEquals(-1, b, "the server should have closed the connection");
        } catch (EOFException | java.net.SocketException e) {
            // closed (reset) as expected
        }
    }

    private static int freePort() {
        try (java.net.ServerSocket probe = new java.net.ServerSocket(0)) {
            return probe.getLocalPort();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}

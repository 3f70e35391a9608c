package io.selcc.twopc;

import io.selcc.engine.cc.AbortReason;
import io.selcc.fabric.MalformedMessageException;
import io.selcc.fabric.WireReader;
import io.selcc.fabric.WireWriter;
import io.selcc.twopc.Messages.Ack;
import io.selcc.twopc.Messages.Decide;
import io.selcc.twopc.Messages.Delete;
import io.selcc.twopc.Messages.Done;
import io.selcc.twopc.Messages.Inquire;
import io.selcc.twopc.Messages.Insert;
import io.selcc.twopc.Messages.Outcome;
import io.selcc.twopc.Messages.Prepare;
import io.selcc.twopc.Messages.Read;
import io.selcc.twopc.Messages.Refused;
import io.selcc.twopc.Messages.Row;
import io.selcc.twopc.Messages.Rows;
import io.selcc.twopc.Messages.Scan;
import io.selcc.twopc.Messages.Vote;
import io.selcc.twopc.Messages.Write;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every message of partitioned mode survives its codec; bytes that are not one are refused by name. */
class MessagesCodecTest {
    private static Object roundTrip(Object message) {
        WireWriter out = new WireWriter();
        Messages.CODEC.encode(message, out);
        WireReader in = new WireReader(out.toByteArray());
        Object copy = Messages.CODEC.decode(in);
        in.expectEnd("2PC message");
        return copy;
    }

    @Test
    void recordsWithoutArraysComeBackEqual() {
        for (Object m : List.of(new Read(1, 2, "stock", 99, true), new Delete(3, 4, "new_order", 7),
            new Scan(5, 6, "order_line_pk", 10, 20, 15, true), new Decide(8, true), new Inquire(9), new Done(false),
            new Refused(AbortReason.GLOBAL_ABORT), Vote.READ_ONLY, Outcome.UNKNOWN, Ack.ACK)) {
            assertEquals(m, roundTrip(m));
        }
    }

    @Test
    void bytesAndListsComeBackWhole() {
        byte[] image = {1, 2, 3, 4, 5};
        Insert insert = (Insert) roundTrip(new Insert(1, 1, "history", image));
        assertArrayEquals(image, insert.image());
        assertEquals("history", insert.table());
        Prepare prepare = (Prepare) roundTrip(new Prepare(4, 3, List.of(new Write("stock", 17, image),
            new Write("district", 2, new byte[0]))));
        assertEquals(2, prepare.writes().size());
        assertEquals(17, prepare.writes().get(0).key());
        assertArrayEquals(image, prepare.writes().get(0).image());
        assertEquals(0, prepare.writes().get(1).image().length);
        assertEquals(null, ((Row) roundTrip(new Row(null))).image());
        Rows rows = (Rows) roundTrip(new Rows(List.of(image, new byte[] {9})));
        assertArrayEquals(new byte[] {9}, rows.images().get(1));
    }

    @Test
    void malformedBytesAreRefused() {
        WireWriter out = new WireWriter();
        Messages.CODEC.encode(new Prepare(4, 3, List.of(new Write("stock", 17, new byte[8]))), out);
        byte[] bytes = out.toByteArray();
        assertThrows(MalformedMessageException.class,
            () -> Messages.CODEC.decode(new WireReader(Arrays.copyOf(bytes, bytes.length - 3))));
        byte[] hugeCount = bytes.clone();
        hugeCount[13] = 0x7F; // the writes count's high byte, after tag, gtid and ops
        MalformedMessageException e = assertThrows(MalformedMessageException.class,
            () -> Messages.CODEC.decode(new WireReader(hugeCount)));
        assertTrue(e.getMessage().contains("prepare writes"), e.getMessage());
        e = assertThrows(MalformedMessageException.class, () -> Messages.CODEC.decode(new WireReader(new byte[] {42})));
        assertTrue(e.getMessage().contains("unknown two-phase-commit message type 42"), e.getMessage());
    }
}

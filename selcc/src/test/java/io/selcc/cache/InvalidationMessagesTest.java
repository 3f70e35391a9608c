package io.selcc.cache;

import io.selcc.cache.InvalidationMessages.Answer;
import io.selcc.cache.InvalidationMessages.Cancel;
import io.selcc.cache.InvalidationMessages.CancelAck;
import io.selcc.cache.InvalidationMessages.Invalidate;
import io.selcc.fabric.MalformedMessageException;
import io.selcc.fabric.WireReader;
import io.selcc.fabric.WireWriter;
import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The invalidation messages survive their codec, and bytes that are not one are refused by name. */
class InvalidationMessagesTest {
    private static byte[] encode(Object message) {
        WireWriter out = new WireWriter();
        InvalidationMessages.CODEC.encode(message, out);
        return out.toByteArray();
    }

    private static Object decode(byte[] bytes) {
        WireReader in = new WireReader(bytes);
        Object message = InvalidationMessages.CODEC.decode(in);
        in.expectEnd("invalidation message");
        return message;
    }

    @Test
    void everyMessageRoundTrips() {
        assertEquals(new Invalidate(7, 0x1_0000_2000L, InvalidationCase.READER_VS_MODIFIED, 12),
            decode(encode(new Invalidate(7, 0x1_0000_2000L, InvalidationCase.READER_VS_MODIFIED, 12))));
        // A wait-die requester's age travels with the request; a request without one carries NO_AGE.
        assertEquals(new Invalidate(8, 4096, InvalidationCase.WRITER_VS_SHARED, 3, 0x0123_4567_89AB_CDEFL),
            decode(encode(new Invalidate(8, 4096, InvalidationCase.WRITER_VS_SHARED, 3, 0x0123_4567_89AB_CDEFL))));
        assertEquals(ComputeNode.NO_AGE,
            ((Invalidate) decode(encode(new Invalidate(8, 4096, InvalidationCase.WRITER_VS_SHARED, 3)))).age());
        assertEquals(Answer.Status.DIE, ((Answer) decode(encode(Answer.of(5, Answer.Status.DIE)))).status());
        assertEquals(new Cancel(9, 4096), decode(encode(new Cancel(9, 4096))));
        assertEquals(new CancelAck(9, true), decode(encode(new CancelAck(9, true))));
        byte[] line = new byte[2040];
        Arrays.fill(line, (byte) 0x5A);
        Answer grant = (Answer) decode(encode(new Answer(3, Answer.Status.GRANTED, 16, 64, line)));
        assertEquals(Answer.Status.GRANTED, grant.status());
        assertEquals(16, grant.dirtyLow());
        assertEquals(64, grant.dirtyHigh());
        assertArrayEquals(line, grant.copy());
        Answer dropped = (Answer) decode(encode(Answer.of(4, Answer.Status.DROPPED)));
        assertEquals(Answer.Status.DROPPED, dropped.status());
        assertEquals(null, dropped.copy());
    }

    @Test
    void truncatedUnknownAndTrailingBytesAreRefused() {
        byte[] whole = encode(new Invalidate(1, 8, InvalidationCase.WRITER_VS_SHARED, 0));
        MalformedMessageException e = assertThrows(MalformedMessageException.class,
            () -> decode(Arrays.copyOf(whole, whole.length - 1)));
        assertTrue(e.getMessage().contains("truncated"), e.getMessage());
        e = assertThrows(MalformedMessageException.class, () -> decode(new byte[] {99}));
        assertTrue(e.getMessage().contains("unknown invalidation message type 99"), e.getMessage());
        byte[] badCase = whole.clone();
        badCase[17] = 7; // the case byte after tag, requestId, address
        e = assertThrows(MalformedMessageException.class, () -> decode(badCase));
        assertTrue(e.getMessage().contains("unknown invalidation case 7"), e.getMessage());
        e = assertThrows(MalformedMessageException.class, () -> decode(Arrays.copyOf(whole, whole.length + 2)));
        assertTrue(e.getMessage().contains("unread"), e.getMessage());
        byte[] answer = encode(Answer.of(1, Answer.Status.RELEASED));
        answer[answer.length - 4] = 0; // the copy's length (-1, none) becomes 100: 100 bytes follow, none do
        answer[answer.length - 3] = 0;
        answer[answer.length - 2] = 0;
        answer[answer.length - 1] = 100;
        e = assertThrows(MalformedMessageException.class, () -> decode(answer));
        assertTrue(e.getMessage().contains("truncated"), e.getMessage());
    }
}

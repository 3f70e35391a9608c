package io.selcc.cli;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

class JsonWriterTest {
    @Test
    void nestedDocumentRoundTrips() {
        String json = new JsonWriter().beginObject()
            .field("s", "a\"b\\c\n\u0001é")
            .field("n", -42)
            .field("d", 0.25)
            .field("nan", Double.NaN)
            .field("t", true)
            .name("empty").beginArray().endArray()
            .name("emptyObject").beginObject().endObject()
            .name("list").beginArray()
            .beginObject().field("k", 1).endObject()
            .value("x")
            .endArray()
            .endObject().toString();
        Map<?, ?> doc = (Map<?, ?>) MiniJson.parse(json);
        assertEquals("a\"b\\c\n\u0001é", doc.get("s"));
        assertEquals(-42.0, doc.get("n"));
        assertEquals(0.25, doc.get("d"));
        assertEquals(null, doc.get("nan"));
        assertEquals(true, doc.containsKey("nan"));
        assertEquals(Boolean.TRUE, doc.get("t"));
        assertEquals(List.of(), doc.get("empty"));
        assertEquals(Map.of(), doc.get("emptyObject"));
        assertEquals(List.of(Map.of("k", 1.0), "x"), doc.get("list"));
    }

    @Test
    void indentsTwoSpacesPerLevel() {
        String json = new JsonWriter().beginObject().name("a").beginArray().value(1).endArray().endObject().toString();
        assertEquals("{\n  \"a\": [\n    1\n  ]\n}\n", json);
    }
}

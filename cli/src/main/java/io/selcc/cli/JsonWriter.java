package io.selcc.cli;

/**
 * A minimal streaming JSON writer with two-space indentation, enough for benchmark reports (no
 * dependency for a few dozen fields). Calls must nest correctly; there is no validation beyond that.
 *
 * <pre>{@code
 * String json = new JsonWriter().beginObject().field("ops", 42).endObject().toString();
 * }</pre>
 */
public final class JsonWriter {
    private static final String INDENT = "  ";
    /** Below this, a control character must be escaped in a JSON string. */
    private static final char FIRST_PRINTABLE = 0x20;

    private final StringBuilder out = new StringBuilder();
    private int depth;
    /** Whether the container being written already has an element (needs a comma before the next). */
    private boolean hasElement;
    /** True right after a member name: the value follows on the same line. */
    private boolean afterName;

    public JsonWriter beginObject() {
        return open('{');
    }

    public JsonWriter endObject() {
        return close('}');
    }

    public JsonWriter beginArray() {
        return open('[');
    }

    public JsonWriter endArray() {
        return close(']');
    }

    /** The name of the next member of the current object. */
    public JsonWriter name(String name) {
        startElement();
        quote(name);
        out.append(": ");
        afterName = true;
        return this;
    }

    public JsonWriter value(String value) {
        startElement();
        if (value == null) {
            out.append("null");
        } else {
            quote(value);
        }
        return this;
    }

    public JsonWriter value(long value) {
        startElement();
        out.append(value);
        return this;
    }

    /** NaN and infinities have no JSON form; they are written as null. */
    public JsonWriter value(double value) {
        startElement();
        out.append(Double.isFinite(value) ? Double.toString(value) : "null");
        return this;
    }

    public JsonWriter value(boolean value) {
        startElement();
        out.append(value);
        return this;
    }

    /** A value that is already JSON text (another writer's finished object), written as is. */
    public JsonWriter raw(String json) {
        startElement();
        out.append(json);
        return this;
    }

    public JsonWriter field(String name, String value) {
        return name(name).value(value);
    }

    public JsonWriter field(String name, long value) {
        return name(name).value(value);
    }

    public JsonWriter field(String name, double value) {
        return name(name).value(value);
    }

    public JsonWriter field(String name, boolean value) {
        return name(name).value(value);
    }

    /** The document so far, with a final newline once the outermost container is closed. */
    @Override
    public String toString() {
        return depth == 0 && !out.isEmpty() ? out + "\n" : out.toString();
    }

    private JsonWriter open(char bracket) {
        startElement();
        out.append(bracket);
        depth++;
        hasElement = false;
        return this;
    }

    private JsonWriter close(char bracket) {
        depth--;
        if (hasElement) {
            newline();
        }
        out.append(bracket);
        hasElement = true; // the closed container is an element of its parent
        return this;
    }

    /** Separator and indentation before a value or a member name. */
    private void startElement() {
        if (afterName) {
            afterName = false; // the value of a member: same line, separator already written
            return;
        }
        if (hasElement) {
            out.append(',');
        }
        if (depth > 0) {
            newline();
        }
        hasElement = true;
    }

    private void newline() {
        out.append('\n');
        out.append(INDENT.repeat(depth));
    }

    private void quote(String s) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < FIRST_PRINTABLE) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }
}

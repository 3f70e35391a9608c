package io.selcc.fabric.tcp;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

/**
 * Where each node of a TCP cluster listens. The file form is one {@code key=host:port} line per node:
 * {@code memory.0}, {@code memory.1}, ... and {@code compute.0}, {@code compute.1}, ... (ids from 0,
 * no gaps, each once); blank lines and lines starting with {@code #} are skipped.
 */
public record ClusterMap(List<InetSocketAddress> memoryNodes, List<InetSocketAddress> computeNodes) {
    public ClusterMap {
        if (memoryNodes.isEmpty() || computeNodes.isEmpty()) {
            throw new IllegalArgumentException("a cluster needs at least one memory node and one compute node: memory="
                + memoryNodes.size() + " compute=" + computeNodes.size());
        }
        memoryNodes = List.copyOf(memoryNodes);
        computeNodes = List.copyOf(computeNodes);
    }

    /** Reads a cluster file; every problem is an IllegalArgumentException naming the file and the line. */
    public static ClusterMap load(Path file) {
        List<String> lines;
        try {
            lines = Files.readAllLines(file);
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException("cluster file " + file + " does not exist");
        } catch (IOException e) {
            throw new IllegalArgumentException("cluster file " + file + " cannot be read: " + e.getMessage());
        }
        TreeMap<Integer, InetSocketAddress> memory = new TreeMap<>();
        TreeMap<Integer, InetSocketAddress> compute = new TreeMap<>();
        for (int n = 0; n < lines.size(); n++) {
            String line = lines.get(n).strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            String where = "cluster file " + file + " line " + (n + 1);
            int eq = line.indexOf('=');
            if (eq < 0) {
                throw new IllegalArgumentException(where + ": expected key=host:port, got '" + line + "'");
            }
            String key = line.substring(0, eq).strip();
            String value = line.substring(eq + 1).strip();
            TreeMap<Integer, InetSocketAddress> role;
            String idText;
            if (key.startsWith("memory.")) {
                role = memory;
                idText = key.substring("memory.".length());
            } else if (key.startsWith("compute.")) {
                role = compute;
                idText = key.substring("compute.".length());
            } else {
                throw new IllegalArgumentException(where + ": unknown key '" + key + "' (memory.N or compute.N)");
            }
            int id;
            try {
                id = Integer.parseInt(idText);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(where + ": '" + key + "' has no node number");
            }
            if (id < 0) {
                throw new IllegalArgumentException(where + ": '" + key + "': node ids start at 0");
            }
            if (role.put(id, parseAddress(value, where + ": " + key)) != null) {
                throw new IllegalArgumentException(where + ": " + key + " is defined twice");
            }
        }
        return new ClusterMap(dense(memory, "memory", file), dense(compute, "compute", file));
    }

    private static List<InetSocketAddress> dense(TreeMap<Integer, InetSocketAddress> byId, String role, Path file) {
        if (byId.isEmpty()) {
            throw new IllegalArgumentException("cluster file " + file + " names no " + role + " node (" + role + ".0=host:port)");
        }
        List<InetSocketAddress> list = new ArrayList<>();
        for (int id = 0; id <= byId.lastKey(); id++) {
            InetSocketAddress address = byId.get(id);
            if (address == null) {
                throw new IllegalArgumentException("cluster file " + file + " is missing " + role + "." + id
                    + " (ids run from 0 without gaps; the highest is " + byId.lastKey() + ")");
            }
            list.add(address);
        }
        return list;
    }

    /** {@code host:port} with a port in 0..65535; {@code what} names it in the error. */
    public static InetSocketAddress parseAddress(String text, String what) {
        int colon = text.lastIndexOf(':');
        if (colon <= 0 || colon == text.length() - 1) {
            throw new IllegalArgumentException(what + ": expected host:port, got '" + text + "'");
        }
        String host = text.substring(0, colon);
        int port;
        try {
            port = Integer.parseInt(text.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(what + ": port of '" + text + "' is not a number");
        }
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException(what + ": port " + port + " is outside 0-65535");
        }
        return InetSocketAddress.createUnresolved(host, port);
    }
}

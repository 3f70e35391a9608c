package io.selcc.testkit;

import java.util.ArrayDeque;
import java.util.List;

/** Graph checks shared by the history checkers (sequential consistency, serializability). */
public final class Graphs {
    private Graphs() {
    }

    /** True if the directed graph (adjacency lists over nodes 0..n-1) has no cycle (Kahn's algorithm). */
    public static boolean isAcyclic(List<List<Integer>> edges) {
        int n = edges.size();
        int[] indegree = new int[n];
        for (List<Integer> out : edges) {
            for (int to : out) {
                indegree[to]++;
            }
        }
        ArrayDeque<Integer> ready = new ArrayDeque<>();
        for (int i = 0; i < n; i++) {
            if (indegree[i] == 0) {
                ready.add(i);
            }
        }
        int sorted = 0;
        while (!ready.isEmpty()) {
            int at = ready.poll();
            sorted++;
            for (int to : edges.get(at)) {
                if (--indegree[to] == 0) {
                    ready.add(to);
                }
            }
        }
        return sorted == n;
    }
}

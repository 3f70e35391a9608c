package io.selcc.tpcc.driver;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.selcc.tpcc.driver.TerminalPlacement.Placement;
import io.selcc.tpcc.driver.TerminalPlacement.Terminal;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Where terminals run. Planted bug caught: HOME placement computed as SPREAD's (warehouse 1's terminals then
 * ran on both nodes of a W=2 run, and the "one node per warehouse" check failed).
 */
class TerminalPlacementTest {

    @Test
    void homePlacementKeepsEachWarehouseOnItsOwnNode() {
        TerminalPlacement p = TerminalPlacement.of(4, 10, 2, Placement.HOME);
        assertEquals(40, p.terminals().size());
        for (Terminal t : p.terminals()) {
            assertEquals((t.homeWarehouse() - 1) % 2, t.node(), "the node partitioned mode gives " + t);
        }
        assertArrayEquals(new int[] {20, 20}, p.perNode());
        assertEquals(20, p.busiestNode());
    }

    @Test
    void fewerWarehousesThanNodesShareAWarehouseOverTheNodesThatHaveIt() {
        TerminalPlacement p = TerminalPlacement.of(1, 10, 2, Placement.HOME);
        assertArrayEquals(new int[] {5, 5}, p.perNode(), "one warehouse's ten terminals over both nodes");
        TerminalPlacement three = TerminalPlacement.of(2, 6, 3, Placement.HOME);
        // Nodes 0 and 2 share warehouse 1, node 1 has warehouse 2.
        for (Terminal t : three.terminals()) {
            assertEquals(t.homeWarehouse() == 1, t.node() != 1, t.toString());
        }
        assertArrayEquals(new int[] {3, 6, 3}, three.perNode());
    }

    @Test
    void spreadPlacementDealsEveryWarehouseOverEveryNode() {
        TerminalPlacement p = TerminalPlacement.of(2, 10, 2, Placement.SPREAD);
        for (int w = 1; w <= 2; w++) {
            Set<Integer> nodes = new HashSet<>();
            for (Terminal t : p.terminals()) {
                if (t.homeWarehouse() == w) {
                    nodes.add(t.node());
                }
            }
            assertEquals(Set.of(0, 1), nodes, "warehouse " + w);
        }
        assertArrayEquals(new int[] {10, 10}, p.perNode());
    }

    @Test
    void terminalsAreNumberedByNodeAndCoverTheDistricts() {
        TerminalPlacement p = TerminalPlacement.of(3, 10, 2, Placement.HOME);
        List<Terminal> all = p.terminals();
        for (int i = 0; i < all.size(); i++) {
            assertEquals(i, all.get(i).index());
            if (i > 0) {
                assertTrue(all.get(i - 1).node() <= all.get(i).node(), "a node's terminals are consecutive");
            }
        }
        for (int w = 1; w <= 3; w++) {
            Set<Integer> districts = new HashSet<>();
            for (Terminal t : all) {
                if (t.homeWarehouse() == w) {
                    districts.add(t.homeDistrict());
                }
            }
            assertEquals(10, districts.size(), "ten terminals of warehouse " + w + " have the ten districts");
        }
    }

    @Test
    void badShapesAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> TerminalPlacement.of(0, 1, 1, Placement.HOME));
        assertThrows(IllegalArgumentException.class, () -> TerminalPlacement.of(1, 0, 1, Placement.HOME));
    }
}

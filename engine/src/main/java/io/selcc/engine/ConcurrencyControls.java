package io.selcc.engine;

import io.selcc.engine.cc.ConcurrencyControlProvider;

import java.util.Map;
import java.util.ServiceLoader;
import java.util.TreeMap;

/** Finds concurrency-control algorithms on the class path by name ({@link ServiceLoader}). */
public final class ConcurrencyControls {
    private ConcurrencyControls() {
    }

    /** Names of the algorithms on the class path, sorted. */
    public static java.util.Set<String> available() {
        return providers().keySet();
    }

    static ConcurrencyControlProvider byName(String name) {
        Map<String, ConcurrencyControlProvider> providers = providers();
        ConcurrencyControlProvider provider = providers.get(name == null ? null : name.toLowerCase(java.util.Locale.ROOT));
        if (provider == null) {
            throw new IllegalArgumentException("unknown concurrency control: cc=" + name + " available="
                + providers.keySet());
        }
        return provider;
    }

    private static Map<String, ConcurrencyControlProvider> providers() {
        Map<String, ConcurrencyControlProvider> byName = new TreeMap<>();
        for (ConcurrencyControlProvider provider : ServiceLoader.load(ConcurrencyControlProvider.class)) {
            byName.put(provider.name(), provider);
        }
        return byName;
    }
}

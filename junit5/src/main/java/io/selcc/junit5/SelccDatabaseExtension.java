package io.selcc.junit5;

import io.selcc.engine.Database;
import io.selcc.engine.DatabaseNode;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.platform.commons.support.AnnotationSupport;

import java.lang.reflect.Executable;
import java.lang.reflect.Method;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The JUnit 5 extension behind {@link SelccDatabase}: opens a database when a test method first asks
 * for one (a {@link Database}, {@link DatabaseNode} or {@link DatabaseCounters} parameter) and closes it
 * when the method ends. Each test method gets its own database, cluster and memory, so test classes and
 * methods run in parallel share nothing.
 *
 * <p>With a builder hook, for what the annotation cannot say (a latency model, indexes built in code):
 * <pre>{@code
 * @RegisterExtension
 * static SelccDatabaseExtension db = new SelccDatabaseExtension(b -> b.computeNodes(3).cc("to")
 *     .table(TableDefinition.of("item", ITEM, row -> row.getLong(0))));
 * }</pre>
 * The hook runs after the settings of a {@link SelccDatabase} on the method or class, if any. Use one
 * or the other on a class: both would offer the same parameters.
 */
public final class SelccDatabaseExtension implements ParameterResolver {
    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(SelccDatabaseExtension.class);

    private final Consumer<Database.Builder> hook;

    /** The extension as {@link SelccDatabase} registers it: the annotation's settings alone. */
    public SelccDatabaseExtension() {
        this(builder -> { });
    }

    /** An extension whose databases {@code hook} configures (after any {@link SelccDatabase} settings). */
    public SelccDatabaseExtension(Consumer<Database.Builder> hook) {
        this.hook = java.util.Objects.requireNonNull(hook, "hook");
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        Class<?> type = parameter.getParameter().getType();
        return type == Database.class || type == DatabaseNode.class || type == DatabaseCounters.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        Executable declaring = parameter.getDeclaringExecutable();
        if (!(declaring instanceof Method) || context.getTestMethod().isEmpty()) {
            // A @BeforeAll method's database would sit in the class's store, where every test method
            // would find it: one database for all, not one each.
            throw new ParameterResolutionException("a SELCC database is given to test methods, one per method: "
                + declaring + " is not one");
        }
        Open open = context.getStore(NAMESPACE).getOrComputeIfAbsent(Open.class, key -> open(context), Open.class);
        Class<?> type = parameter.getParameter().getType();
        if (type == Database.class) {
            return open.db;
        }
        if (type == DatabaseCounters.class) {
            return open.counters;
        }
        int node = parameter.findAnnotation(Node.class).map(Node::value).orElse(0);
        if (node < 0 || node >= open.db.computeNodeCount()) {
            throw new ParameterResolutionException("@Node(" + node + ") on " + parameter.getParameter() + ": the database has"
                + " compute nodes 0-" + (open.db.computeNodeCount() - 1));
        }
        return open.db.node(node);
    }

    /** The database of one test method; the store closes it when the method ends. */
    private record Open(Database db, DatabaseCounters counters) implements AutoCloseable {
        @Override
        public void close() {
            db.close();
        }
    }

    private Open open(ExtensionContext context) {
        Database.Builder builder = Database.builder();
        Optional<SelccDatabase> settings = AnnotationSupport.findAnnotation(context.getTestMethod(), SelccDatabase.class)
            .or(() -> context.getTestClass().flatMap(c -> AnnotationSupport.findAnnotation(c, SelccDatabase.class)));
        settings.ifPresent(s -> apply(s, builder));
        hook.accept(builder);
        Database db;
        try {
            db = builder.build();
        } catch (IllegalArgumentException | IllegalStateException e) {
            throw new ParameterResolutionException("cannot open the test's SELCC database: " + e.getMessage(), e);
        }
        return new Open(db, new DatabaseCounters(db));
    }

    private static void apply(SelccDatabase s, Database.Builder builder) {
        builder.computeNodes(s.computeNodes())
            .memoryNodes(s.memoryNodes())
            .cc(s.cc())
            .accessMode(s.access())
            .cacheFrames(s.cacheFrames())
            .gclSize(s.gclSize())
            .threadsPerNode(s.threadsPerNode())
            .memoryPerNode(s.memoryMiB() << 20);
        for (Class<? extends DatabaseSchema> schema : s.schema()) {
            DatabaseSchema definition;
            try {
                java.lang.reflect.Constructor<? extends DatabaseSchema> constructor = schema.getDeclaredConstructor();
                constructor.setAccessible(true);
                definition = constructor.newInstance();
            } catch (ReflectiveOperationException e) {
                throw new ParameterResolutionException("@SelccDatabase(schema = " + schema.getName() + ".class): it needs a"
                    + " constructor without arguments (" + e + ")", e);
            }
            definition.define(builder);
        }
    }
}

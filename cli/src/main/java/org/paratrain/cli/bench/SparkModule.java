package org.paratrain.cli.bench;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.paratrain.comm.BackendException;

/**
 * The Spark module as the command line reaches it: never on this JVM's class path (the command
 * line stays Spark-free), but built next to it, and run in a JVM of its own with the options
 * Spark's launcher gives every JVM that embeds it.
 */
public final class SparkModule {
    private SparkModule() { }

    /** The options every JVM that embeds Spark needs (Spark's launcher, JavaModuleOptions, 4.2.0). */
    public static final List<String> JVM_OPTIONS = List.of("-XX:+IgnoreUnrecognizedVMOptions",
        "--add-modules=jdk.incubator.vector", "--add-opens=java.base/java.lang=ALL-UNNAMED",
        "--add-opens=java.base/java.lang.invoke=ALL-UNNAMED", "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
        "--add-opens=java.base/java.io=ALL-UNNAMED", "--add-opens=java.base/java.net=ALL-UNNAMED",
        "--add-opens=java.base/java.nio=ALL-UNNAMED", "--add-opens=java.base/java.util=ALL-UNNAMED",
        "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
        "--add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED",
        "--add-opens=java.base/jdk.internal.ref=ALL-UNNAMED", "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
        "--add-opens=java.base/sun.nio.cs=ALL-UNNAMED", "--add-opens=java.base/sun.security.action=ALL-UNNAMED",
        "--add-opens=java.base/sun.util.calendar=ALL-UNNAMED",
        "--add-opens=java.security.jgss/sun.security.krb5=ALL-UNNAMED", "-Dio.netty.tryReflectionSetAccessible=true",
        "--sun-misc-unsafe-memory-access=allow", "--enable-native-access=ALL-UNNAMED");

    /**
     * {@return the Spark module's build directory, next to this command line's build}
     * @param who the command that needs it, for the error
     * @throws BackendException if the module is not built
     */
    public static Path target(String who) {
        Path here;
        try {
            here = Path.of(SparkModule.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (java.net.URISyntaxException e) {
            throw new IllegalStateException(e);
        }
        // cli/target/paratrain.jar or cli/target/classes: the module sits at ../../spark/target.
        Path target = here.getParent().getParent().getParent().resolve("spark").resolve("target");
        if (!Files.isRegularFile(target.resolve("classpath.txt"))) {
            throw new BackendException(who + " needs the Spark module built: " + target.resolve("classpath.txt")
                + " is missing (run mvn -B -DskipTests package in " + target.getParent().getParent() + ")");
        }
        return target;
    }

    /**
     * {@return the command of a JVM that runs {@code mainClass} of the Spark module}
     * @param target    the module's build directory ({@link #target})
     * @param heap      the JVM's {@code -Xmx} value
     * @param mainClass the class to run
     * @param args      its arguments
     * @throws BackendException if the module's classes are not there
     */
    public static List<String> command(Path target, String heap, String mainClass, String... args) {
        String classPath = module(target) + File.pathSeparator + String.join(File.pathSeparator, libraries(target));
        List<String> cmd = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"),
            "-Xmx" + heap));
        cmd.addAll(JVM_OPTIONS);
        cmd.addAll(List.of("-cp", classPath, mainClass));
        cmd.addAll(List.of(args));
        return cmd;
    }

    /**
     * {@return the module's classes: where they are compiled (a build tree, also while the module's
     * own tests run), else its jar}
     * @param target the module's build directory ({@link #target})
     * @throws BackendException if neither is there
     */
    public static Path module(Path target) {
        Path classes = target.resolve("classes");
        if (Files.isDirectory(classes.resolve("org"))) {
            return classes;
        }
        try (var s = Files.list(target)) {
            return s.filter(p -> p.getFileName().toString().matches("paratrain-spark-.*[0-9T]\\.jar")).findFirst()
                .orElseThrow(() -> new BackendException("no paratrain-spark classes or jar in " + target));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /**
     * {@return the module's libraries, Spark's among them (its class path as the build wrote it)}
     * @param target the module's build directory ({@link #target})
     */
    public static List<String> libraries(Path target) {
        try {
            return List.of(Files.readString(target.resolve("classpath.txt")).trim().split(File.pathSeparator));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /**
     * {@return the libraries a Spark installation lacks, for {@code spark-submit --jars}: paratrain's
     * library and Commons CSV (Spark has the rest)}
     * @param target the module's build directory ({@link #target})
     */
    public static List<String> notInSpark(Path target) {
        return libraries(target).stream().filter(e -> {
            String name = Path.of(e).getFileName().toString();
            return Files.isDirectory(Path.of(e, "org", "paratrain"))
                || name.endsWith(".jar") && (name.startsWith("paratrain") || name.startsWith("commons-csv"));
        }).toList();
    }

    /**
     * {@return a builder for {@code cmd} without the options the environment would add a second time}
     * @param cmd a command {@link #command} made
     */
    public static ProcessBuilder builder(List<String> cmd) {
        return ChildJvm.builder(cmd);
    }
}

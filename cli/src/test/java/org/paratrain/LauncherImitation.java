package org.paratrain;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import org.paratrain.cli.Main;

/**
 * A stand-in for {@code ./paratrain} in tests that run the README's command lines: this JVM's
 * class path (no jar, no build step) with the launcher's JVM options, which
 * {@code LauncherStartTest} checks against the script's.
 */
public final class LauncherImitation {
    /** The launcher's JVM options, as its {@code jvm=(...)} line expands them without huge pages. */
    public static final List<String> JVM_OPTIONS = List.of("--enable-native-access=ALL-UNNAMED",
        "-XX:+UseParallelGC", "-XX:-UsePerfData", "-XX:+DisplayVMOutputToStderr", "-XX:Tier4BackEdgeThreshold=400000");

    private LauncherImitation() { }

    /** Writes the stand-in to {@code script}: it runs {@link Main} with the arguments it is given. */
    public static void write(Path script) throws IOException {
        String classPath = classPath();
        String java = java();
        if (classPath.contains("'") || java.contains("'")) {
            throw new IllegalStateException("a quote in the class path or the JVM's path: " + classPath);
        }
        Files.writeString(script, "#!/bin/sh\nexec '" + java + "' " + String.join(" ", JVM_OPTIONS)
            + " ${PARATRAIN_JAVA_OPTS:-} -cp '" + classPath + "' " + Main.class.getName() + " \"$@\"\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    /** {@return the command of this JVM} */
    public static String java() {
        return ProcessHandle.current().info().command()
            .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    }

    /** {@return this JVM's class path, every entry absolute} */
    public static String classPath() {
        List<String> parts = new ArrayList<>();
        for (String p : System.getProperty("java.class.path").split(File.pathSeparator)) {
            parts.add(Path.of(p).toAbsolutePath().toString());
        }
        return String.join(File.pathSeparator, parts);
    }
}

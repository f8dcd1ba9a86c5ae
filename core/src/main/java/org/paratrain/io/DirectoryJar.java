package org.paratrain.io;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;

/**
 * A class path entry as a jar: a cluster ships jars to its executors (Spark's {@code spark.jars},
 * {@code spark-submit --jars}), not directories, and a build tree (also while its tests run) has
 * its classes in a directory.
 */
public final class DirectoryJar {
    private DirectoryJar() { }

    /**
     * {@return {@code entry} itself if it is a file, else a new jar in the temporary directory
     * holding the directory's files (deleted when this JVM ends)}
     *
     * @param entry a jar or a directory of classes
     * @throws IOException if the directory cannot be read or the jar written
     */
    public static Path of(Path entry) throws IOException {
        if (!Files.isDirectory(entry)) {
            return entry;
        }
        Path jar = Files.createTempFile("paratrain-classes-", ".jar");
        ExitCleanup.deleteOnExit(jar);
        List<Path> files;
        try (Stream<Path> s = Files.walk(entry)) {
            files = s.filter(Files::isRegularFile).sorted().toList();
        }
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().putValue("Manifest-Version", "1.0");
        try (OutputStream out = Files.newOutputStream(jar); JarOutputStream j = new JarOutputStream(out, manifest)) {
            for (Path f : files) {
                String name = entry.relativize(f).toString().replace(java.io.File.separatorChar, '/');
                if (name.equals("META-INF/MANIFEST.MF")) {
                    continue;
                }
                j.putNextEntry(new JarEntry(name));
                Files.copy(f, j);
                j.closeEntry();
            }
        }
        return jar;
    }
}

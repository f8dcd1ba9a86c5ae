package org.paratrain.io;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Programs on the {@code PATH} (mpirun, mpicc, ip, tc), found as a shell would: the first
 * directory of {@code PATH} (or {@code /usr/bin} without one) holding an executable of the name.
 * One place for what the MPI launcher, the benchmarks and their tests each looked up by hand.
 */
public final class Executables {
    private Executables() { }

    /**
     * {@return the executable {@code name} in the first directory of the PATH that has one, if any}
     * @param name a program's file name, such as {@code mpirun}
     */
    public static Optional<Path> find(String name) {
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(File.pathSeparator)) {
            Path p = Path.of(dir, name);
            if (Files.isExecutable(p)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }

    /**
     * {@return whether {@code name} is an executable on the PATH}
     * @param name a program's file name, such as {@code mpirun}
     */
    public static boolean onPath(String name) {
        return find(name).isPresent();
    }
}

package org.paratrain.cli;

import java.lang.foreign.Arena;
import java.lang.foreign.SymbolLookup;
import java.nio.file.Files;
import java.nio.file.Path;
import org.paratrain.comm.BackendException;
import org.paratrain.data.DataFormatException;

/**
 * Input files and libraries checked before any work starts: a missing test file or MPI library
 * found only after the training data is read (or by every rank of an MPI job, each printing
 * its own error) costs the user time and clutters the output.
 */
final class InputFiles {
    private InputFiles() { }

    /** Each non-null path exists, is a file and may be read. */
    static void require(Path... files) {
        for (Path f : files) {
            if (f == null) {
                continue;
            }
            if (Files.isDirectory(f)) {
                throw new DataFormatException(f + ": is a directory, expected a file");
            }
            if (!Files.exists(f)) {
                throw new DataFormatException(f + ": no such file");
            }
            if (!Files.isReadable(f)) {
                throw new DataFormatException(f + ": permission denied");
            }
            if (!Files.isRegularFile(f)) {
                throw new DataFormatException(f + ": " + kind(f) + ", expected a regular file (input files are read "
                    + "more than once, and a device or pipe may never end)");
            }
        }
    }

    /** What a path that is not a regular file is, in words. */
    private static String kind(Path f) {
        try {
            int type = (Integer) Files.getAttribute(f, "unix:mode") & 0170000;
            return switch (type) {
                case 0010000 -> "is a FIFO";
                case 0020000 -> "is a character device";
                case 0060000 -> "is a block device";
                case 0140000 -> "is a socket";
                default -> "is not a regular file";
            };
        } catch (java.io.IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return "is not a regular file";
        }
    }

    /** A file given as an option's value (not data: a mistake there is an option error, exit 2). */
    static void optionFile(String option, Path f) {
        if (f == null) {
            return;
        }
        if (Files.isDirectory(f)) {
            throw new IllegalArgumentException(option + " " + f + " is a directory, expected a file");
        }
        if (!Files.isReadable(f)) {
            throw new IllegalArgumentException(option + " " + f + (Files.exists(f) ? ": permission denied"
                : ": no such file"));
        }
    }

    /**
     * The library {@code PARATRAIN_MPI_LIB} names (null or blank: the installed one, found by the
     * ranks) can be loaded. Checked once in the process that starts mpirun; otherwise every rank
     * would fail to load it and report it.
     */
    static void mpiLibrary(String named) {
        if (named == null || named.isBlank()) {
            return;
        }
        String advice = "; set PARATRAIN_MPI_LIB to an MPI library (e.g. libmpi.so.40 of Open MPI, libmpich.so.12 of "
            + "MPICH), or unset it to use the installed one";
        if (named.contains("/") && !Files.exists(Path.of(named))) {
            throw new BackendException("PARATRAIN_MPI_LIB names " + named + ", which does not exist" + advice);
        }
        try (Arena arena = Arena.ofConfined()) {
            SymbolLookup lib = SymbolLookup.libraryLookup(named, arena);
            if (lib.find("MPI_Init").isEmpty()) {
                throw new BackendException("PARATRAIN_MPI_LIB names " + named + ", which is not an MPI library (it has no "
                    + "MPI_Init)" + advice);
            }
        } catch (IllegalArgumentException e) {
            throw new BackendException("PARATRAIN_MPI_LIB names " + named + ", which cannot be loaded" + advice);
        }
    }
}

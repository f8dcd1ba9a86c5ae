package org.paratrain.io;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Directories made for an output, remembered so that a failed write removes them again (a
 * failed run leaves no empty directory behind), and I/O failures put in words of their own
 * rather than an exception's class name.
 */
public final class Directories {
    private Directories() { }

    /**
     * Makes {@code dir} and its missing parents.
     *
     * @param dir the directory wanted
     * @return the directories made, outermost first; empty if {@code dir} existed
     * @throws IOException if one cannot be made
     */
    public static List<Path> make(Path dir) throws IOException {
        List<Path> missing = new ArrayList<>();
        for (Path p = dir.toAbsolutePath(); p != null && !Files.exists(p, LinkOption.NOFOLLOW_LINKS); p = p.getParent()) {
            missing.addFirst(p);
        }
        List<Path> made = new ArrayList<>();
        try {
            for (Path p : missing) {
                Files.createDirectory(p);
                made.add(p);
            }
        } catch (IOException e) {
            remove(made);
            throw e;
        }
        if (!Files.isDirectory(dir)) {
            throw new java.nio.file.NotDirectoryException(dir.toString());
        }
        return made;
    }

    /**
     * Removes directories {@link #make} made, innermost first, where they are still empty.
     *
     * @param made what {@link #make} returned
     */
    public static void remove(List<Path> made) {
        for (int i = made.size() - 1; i >= 0; i--) {
            try {
                Files.deleteIfExists(made.get(i));
            } catch (IOException ignored) {
                return;   // not empty (someone else's file) or not ours to remove: leave it and those above
            }
        }
    }

    /**
     * {@return one line saying why {@code target} could not be written}
     * @param target the output named by the user
     * @param e      the failure
     */
    public static String message(Path target, IOException e) {
        String why;
        if (e instanceof AccessDeniedException) {
            why = "permission denied";
        } else if (e instanceof NoSuchFileException n) {
            why = "no such file or directory: " + n.getFile();
        } else if (e instanceof java.nio.file.NotDirectoryException n) {
            why = n.getFile() + " is not a directory";
        } else if (e instanceof java.nio.file.DirectoryNotEmptyException n) {
            why = n.getFile() + " is a directory that is not empty";
        } else if (e instanceof FileSystemException f && f.getReason() != null) {
            why = f.getReason().toLowerCase(Locale.ROOT);
        } else if (e instanceof FileSystemException f) {
            why = "cannot write " + f.getFile();
        } else {
            why = String.valueOf(e.getMessage());
        }
        if (why.startsWith(target.toString())) {
            return why;           // OutputTarget's messages name the target already
        }
        return "cannot write " + target + ": " + why;
    }
}

package org.paratrain.experiment;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.paratrain.data.DataFormatException;
import org.paratrain.io.Clip;

/**
 * Reads the JSON files paratrain wrote earlier (model.json, machine.json), with errors a user
 * can act on: one line naming the file, and for broken JSON the line and column. Jackson's
 * own message runs over several lines and ends with a "Source: REDACTED" location that says
 * nothing to someone who did not write the parser.
 */
public final class JsonFiles {
    private JsonFiles() { }

    /**
     * The document in {@code file}.
     *
     * @param file the file to read
     * @param what the kind of file, for errors ("a model file")
     * @return the document
     * @throws DataFormatException naming the file (and line and column) when it cannot be read
     */
    public static JsonNode read(Path file, String what) {
        if (Files.isDirectory(file)) {
            throw new DataFormatException(file + ": is a directory, expected " + what);
        }
        if (!Files.exists(file)) {
            throw new DataFormatException(file + ": no such file");
        }
        try {
            JsonNode o = RunWriter.json().readTree(file.toFile());
            if (o == null || o.isMissingNode()) {
                throw new DataFormatException(file + ": the file is empty; expected " + what + " (JSON)");
            }
            return o;
        } catch (JsonProcessingException e) {
            throw new DataFormatException(file + where(e.getLocation()) + ": not valid JSON, so not " + what + ": "
                + firstLine(e.getOriginalMessage()));
        } catch (IOException e) {
            throw new DataFormatException(file + ": cannot read: " + Clip.message(e.getMessage()));
        }
    }

    private static String where(JsonLocation at) {
        return at == null || at.getLineNr() < 1 ? "" : ":" + at.getLineNr() + ":" + at.getColumnNr();
    }

    private static String firstLine(String message) {
        String m = message == null ? "malformed" : message.strip();
        int nl = m.indexOf('\n');
        m = nl < 0 ? m : m.substring(0, nl).strip();
        // Jackson's own pointer into its input ("(start marker at [Source: REDACTED ...; line: 18, column: 16])"):
        // the file, line and column are already in front of the message.
        int source = m.indexOf(" (start marker at [Source:");
        if (source < 0) {
            source = m.indexOf(" at [Source:");
        }
        return Clip.message(source < 0 ? m : m.substring(0, source).strip());
    }
}

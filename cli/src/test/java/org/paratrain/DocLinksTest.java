package org.paratrain;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The links between the README and the pages of {@code docs/} ({@link ReadmeCommandsTest#FILES}). */
class DocLinksTest {
    /** A Markdown link's target: {@code [text](target)}. */
    private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");

    /**
     * Every relative link of the pages names a file that exists and, after a {@code #}, a heading
     * of that file, by the anchor GitHub makes of it: a page moved or a heading renamed leaves no
     * dead link behind.
     */
    @Test
    void everyLinkFindsItsFileAndHeading() throws IOException {
        for (String file : ReadmeCommandsTest.FILES) {
            Path page = Path.of(file);
            List<String> lines = Files.readAllLines(page);
            boolean inCode = false;
            for (int i = 0; i < lines.size(); i++) {
                inCode ^= lines.get(i).startsWith("```");
                Matcher m = LINK.matcher(lines.get(i));
                while (!inCode && m.find()) {
                    String target = m.group(1);
                    if (target.matches("[a-z]+:.*")) {
                        continue;   // http:, mailto:: not ours to check
                    }
                    String where = file + ":" + (i + 1) + "  " + target;
                    int hash = target.indexOf('#');
                    Path to = hash == 0 ? page : page.resolveSibling(hash < 0 ? target : target.substring(0, hash))
                        .normalize();
                    assertTrue(Files.exists(to), where + ": no file " + to);
                    if (hash >= 0) {
                        List<String> anchors = anchors(to);
                        assertTrue(anchors.contains(target.substring(hash + 1)), where + ": no such heading in " + to
                            + "; its headings are " + anchors);
                    }
                }
            }
        }
    }

    /** The anchors GitHub gives a Markdown file's headings: lower case, punctuation dropped, spaces as hyphens. */
    private static List<String> anchors(Path file) throws IOException {
        List<String> anchors = new ArrayList<>();
        boolean inCode = false;
        for (String line : Files.readAllLines(file)) {
            inCode ^= line.startsWith("```");
            if (!inCode && line.matches("#{1,6} .*")) {
                String base = line.replaceFirst("^#+ ", "").strip().toLowerCase(Locale.ROOT)
                    .replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-');
                String anchor = base;
                for (int n = 1; anchors.contains(anchor); n++) {
                    anchor = base + "-" + n;   // GitHub numbers a repeated heading
                }
                anchors.add(anchor);
            }
        }
        return anchors;
    }
}

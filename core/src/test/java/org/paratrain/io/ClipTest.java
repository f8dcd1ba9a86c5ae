package org.paratrain.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ClipTest {
    @Test
    void shortValuesStayAsTheyAre() {
        assertEquals("abc", Clip.value("abc"));
        assertEquals("--out /tmp/run: permission denied", Clip.message("--out /tmp/run: permission denied"));
    }

    @Test
    void longValuesAreCutAndSayHowLongTheyWere() {
        String v = Clip.value("x".repeat(1_000_000));
        assertEquals("x".repeat(Clip.KEEP) + "... (1000000 characters)", v);
    }

    @Test
    void messagesStayOnOneLineAndCutOnlyOverlongWords() {
        String path = "/home/someone/projects/data/" + "d".repeat(150) + "/X.in";
        String m = Clip.message("bad value '" + "1".repeat(5_000_000) + "' in " + path + ":\nline two\r\tend");
        assertFalse(m.contains("\n") || m.contains("\r") || m.contains("\t"), m);
        assertTrue(m.contains(path), "a path of normal length is kept whole: " + m);
        assertTrue(m.contains("... (5000001 characters)'"), m);
        assertTrue(m.contains("\\nline two\\r\\tend"), m);
        assertTrue(m.length() < 500, m);
    }

    @Test
    void aMessageOfManyShortWordsIsCutAtTheEnd() {
        String m = Clip.message("1 ".repeat(1_000_000));
        assertTrue(m.length() < 2100 && m.endsWith("characters)"), m.length() + " " + m.substring(m.length() - 40));
    }

    @Test
    void invisibleCharactersAreShown() {
        assertEquals("\\ufeff1.0", Clip.value("\uFEFF1.0"));
        assertEquals("a\\u0000b", Clip.value("a\u0000b"));
    }
}

package org.paratrain.io;

/**
 * Shortens text that came from a user before it goes into an error message. A value can be
 * megabytes long (a command-line token built by a script gone wrong, a CSV cell without its
 * line breaks); echoing it whole buries the message and can fill a terminal or a log. A
 * message must also stay one line, whatever characters the value held.
 */
public final class Clip {
    /** Characters of a value kept in a message; enough to recognise it. */
    static final int KEEP = 40;
    /** A run of non-blank characters longer than this is cut: longer than any sane path. */
    private static final int LONGEST_WORD = 256;
    /** A message longer than this is cut at the end. */
    private static final int LONGEST_MESSAGE = 2000;

    private Clip() { }

    /**
     * {@return {@code value} with control characters made visible, cut to its first 40 characters
     * and its length}
     * @param value a value from the user, e.g. a token or a CSV cell; null gives "null"
     */
    public static String value(String value) {
        if (value == null) {
            return "null";
        }
        int keep = value.length() > KEEP && Character.isHighSurrogate(value.charAt(KEEP - 1)) ? KEEP - 1 : KEEP;
        String head = value.length() > KEEP ? value.substring(0, keep) : value;
        String shown = visible(head);
        return value.length() > KEEP ? shown + "... (" + value.length() + " characters)" : shown;
    }

    /**
     * {@code message} as one line of reasonable length: line breaks and other control
     * characters made visible, every overlong word cut to its start, the whole cut at the end.
     *
     * @param message a message that may hold a user's value, e.g. an exception's; null gives ""
     * @return the message, safe to print on one line
     */
    public static String message(String message) {
        if (message == null) {
            return "";
        }
        StringBuilder sb = new StringBuilder(Math.min(message.length(), LONGEST_MESSAGE + 16));
        int i = 0;
        while (i < message.length() && sb.length() < LONGEST_MESSAGE) {
            int end = i;
            while (end < message.length() && !Character.isWhitespace(message.charAt(end))) {
                end++;
            }
            if (end > i) {
                String word = message.substring(i, end);
                sb.append(word.length() > LONGEST_WORD ? cut(word) : visible(word));
                i = end;
            } else {
                char c = message.charAt(i++);
                sb.append(c == ' ' ? " " : visible(String.valueOf(c)));
            }
        }
        if (i < message.length()) {
            sb.append(" ... (message cut at ").append(LONGEST_MESSAGE).append(" characters)");
        }
        return sb.toString();
    }

    /** A long word cut as {@link #value} cuts, keeping the punctuation that closes it (a quote, a colon). */
    private static String cut(String word) {
        int end = word.length();
        while (end > word.length() - 3 && !Character.isLetterOrDigit(word.charAt(end - 1))) {
            end--;
        }
        return value(word.substring(0, end)) + visible(word.substring(end));
    }

    /** Control characters, the byte-order mark and U+2028/U+2029 as escapes, so the text stays on one line. */
    private static String visible(String s) {
        StringBuilder sb = null;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean hidden = Character.isISOControl(c) || c == '\uFEFF' || c == '\u2028' || c == '\u2029';
            if (hidden && sb == null) {
                sb = new StringBuilder(s.length() + 8).append(s, 0, i);
            }
            if (sb != null) {
                sb.append(!hidden ? String.valueOf(c) : switch (c) {
                    case '\n' -> "\\n";
                    case '\r' -> "\\r";
                    case '\t' -> "\\t";
                    default -> String.format("\\u%04x", (int) c);
                });
            }
        }
        return sb == null ? s : sb.toString();
    }
}

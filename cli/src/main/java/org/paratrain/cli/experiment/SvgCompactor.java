package org.paratrain.cli.experiment;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Makes XChart's SVG about a quarter of its size without changing what it shows. XChart draws
 * every label as glyph outlines, and VectorGraphics2D writes each of their points in absolute
 * coordinates with up to 17 digits: 0.6 MB for one chart. Here path data becomes relative
 * ({@code l}, {@code q}, {@code c} from the previous point) and every coordinate is rounded to a
 * tenth of a pixel, far below what a screen or print shows at the chart's 900 x 560 px.
 *
 * <p>Relative steps are taken between rounded points, so rounding never accumulates along a
 * path: each point lands within 0.05 px of where VectorGraphics2D put it. Colours, styles and
 * anything that is not a coordinate stay as they were.
 */
final class SvgCompactor {
    private static final Pattern LINE = Pattern.compile("<line style=\"([^\"]*)\" x1=\"([^\"]*)\" x2=\"([^\"]*)\" "
        + "y1=\"([^\"]*)\" y2=\"([^\"]*)\"/>");
    private static final Pattern PATH_DATA = Pattern.compile(" d=\"([^\"]*)\"");
    private static final Pattern COORDINATE = Pattern.compile(
        " (x|y|x1|x2|y1|y2|width|height|cx|cy|r|rx|ry)=\"(-?[0-9.]+(?:[eE]-?[0-9]+)?)\"");
    private static final Pattern TRANSLATE = Pattern.compile("translate\\((-?[0-9.eE-]+) (-?[0-9.eE-]+)\\)");
    private static final Pattern TOKEN = Pattern.compile("[MLQCZmlqcz]|-?(?:[0-9]+\\.?[0-9]*|\\.[0-9]+)(?:[eE][-+]?[0-9]+)?");

    private SvgCompactor() { }

    /**
     * The same drawing in fewer bytes.
     *
     * @param svg an SVG document as VectorGraphics2D writes it (absolute M, L, Q, C, Z path data)
     * @return the document with relative, rounded path data and rounded coordinates
     */
    static String compact(String svg) {
        String out = replace(PATH_DATA, lines(svg), m -> " d=\"" + path(m.group(1)) + "\"");
        out = replace(COORDINATE, out, m -> " " + m.group(1) + "=\"" + tenth(Double.parseDouble(m.group(2))) + "\"");
        return replace(TRANSLATE, out, m -> "translate(" + tenth(Double.parseDouble(m.group(1))) + " "
            + tenth(Double.parseDouble(m.group(2))) + ")");
    }

    /**
     * Runs of {@code <line>} elements of one style, as XChart draws a series or a grid, as one
     * path: one style attribute rather than one a segment, and no move where a segment starts
     * at the previous one's end.
     */
    static String lines(String svg) {
        Matcher m = LINE.matcher(svg);
        StringBuilder sb = new StringBuilder(svg.length());
        int copied = 0;
        while (m.find(copied)) {
            sb.append(svg, copied, m.start());
            String style = m.group(1);
            StringBuilder d = new StringBuilder();
            String[] end = {null, null};
            int next = m.start();
            Matcher run = LINE.matcher(svg);
            while (run.find(next) && svg.substring(next, run.start()).isBlank() && run.group(1).equals(style)) {
                if (!run.group(2).equals(end[0]) || !run.group(4).equals(end[1])) {
                    d.append(d.isEmpty() ? "M" : " M").append(run.group(2)).append(',').append(run.group(4));
                }
                d.append(" L").append(run.group(3)).append(',').append(run.group(5));
                end[0] = run.group(3);
                end[1] = run.group(5);
                next = run.end();
            }
            sb.append("<path style=\"").append(style).append("\" d=\"").append(d).append("\"/>");
            copied = next;
        }
        sb.append(svg, copied, svg.length());
        return sb.toString();
    }

    /** Absolute path data as relative steps between points rounded to a tenth. */
    static String path(String d) {
        Matcher t = TOKEN.matcher(d);
        java.util.List<String> tokens = new java.util.ArrayList<>();
        while (t.find()) {
            tokens.add(t.group());
        }
        StringBuilder sb = new StringBuilder(d.length() / 3);
        long cx = 0;       // the current point, in tenths, as already written
        long cy = 0;
        long sx = 0;       // where the open subpath started, for Z
        long sy = 0;
        char previous = 0;
        int i = 0;
        while (i < tokens.size()) {
            String command = tokens.get(i++);
            char c = command.charAt(0);
            if (c == 'Z' || c == 'z') {
                sb.append('z');
                cx = sx;
                cy = sy;
                previous = 'z';
                continue;
            }
            int points = switch (Character.toUpperCase(c)) {
                case 'M', 'L' -> 1;
                case 'Q' -> 2;
                case 'C' -> 3;
                default -> throw new IllegalArgumentException("path command " + c + " in " + abbreviated(d));
            };
            if (Character.isLowerCase(c)) {
                throw new IllegalArgumentException("relative path data is already compact: " + abbreviated(d));
            }
            char relative = Character.toLowerCase(c);
            boolean afterLetter = relative != previous || relative == 'm';
            if (afterLetter) {
                sb.append(relative);
            }
            long ex = cx;
            long ey = cy;
            for (int p = 0; p < points; p++) {
                long x = Math.round(Double.parseDouble(tokens.get(i++)) * 10);
                long y = Math.round(Double.parseDouble(tokens.get(i++)) * 10);
                number(sb, x - cx, afterLetter);
                number(sb, y - cy, false);
                afterLetter = false;
                ex = x;
                ey = y;
            }
            cx = ex;
            cy = ey;
            if (relative == 'm') {
                sx = cx;
                sy = cy;
                previous = 'l';      // numbers after an m continue as l
            } else {
                previous = relative;
            }
        }
        return sb.toString();
    }

    /** Appends a step in tenths, with a space before it unless a letter or its minus sign separates it. */
    private static void number(StringBuilder sb, long tenths, boolean afterLetter) {
        if (!afterLetter && tenths >= 0) {
            sb.append(' ');
        }
        sb.append(tenths(tenths));
    }

    /** A count of tenths as the shortest decimal: 12 -> 1.2, 10 -> 1, 5 -> .5, -5 -> -.5. */
    static String tenths(long t) {
        long a = Math.abs(t);
        String sign = t < 0 ? "-" : "";
        if (a % 10 == 0) {
            return sign + a / 10;
        }
        return sign + (a >= 10 ? Long.toString(a / 10) : "") + "." + a % 10;
    }

    private static String tenth(double v) {
        return tenths(Math.round(v * 10));
    }

    private static String abbreviated(String d) {
        return d.length() > 60 ? d.substring(0, 60) + "..." : d;
    }

    private static String replace(Pattern p, String s, java.util.function.Function<Matcher, String> f) {
        Matcher m = p.matcher(s);
        StringBuilder sb = new StringBuilder(s.length());
        while (m.find()) {
            m.appendReplacement(sb, Matcher.quoteReplacement(f.apply(m)));
        }
        m.appendTail(sb);
        return sb.toString();
    }
}

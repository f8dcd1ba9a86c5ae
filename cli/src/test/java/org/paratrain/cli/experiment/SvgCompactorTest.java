package org.paratrain.cli.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;
import org.knowm.xchart.VectorGraphicsEncoder;
import org.knowm.xchart.XYChart;

/**
 * The compacted SVG draws the same points: every path, read back from its relative steps
 * by an independent parser, lands within 0.05 px of the absolute points VectorGraphics2D wrote.
 */
class SvgCompactorTest {
    private static final Pattern D = Pattern.compile(" d=\"([^\"]*)\"");

    @Test
    void aRealChartKeepsEveryPointInLessThanTwoFifthsOfTheBytes() throws Exception {
        double[] loss = new double[300];
        for (int e = 0; e < loss.length; e++) {
            loss[e] = Math.pow(10, 6.3 - 0.087 * e);
        }
        XYChart chart = Plots.loss(loss, "Training loss");
        java.io.ByteArrayOutputStream raw = new java.io.ByteArrayOutputStream();
        VectorGraphicsEncoder.saveVectorGraphic(chart, raw, VectorGraphicsEncoder.VectorGraphicsFormat.SVG);
        String before = raw.toString(StandardCharsets.UTF_8);
        String after = new String(Plots.svg(chart), StandardCharsets.UTF_8);
        List<String> a = paths(SvgCompactor.lines(before));
        List<String> b = paths(after);
        assertEquals(a.size(), b.size(), "paths");
        assertTrue(a.size() > 10, "the chart has its labels as paths");
        for (int i = 0; i < a.size(); i++) {
            assertClose(absolute(a.get(i)), absolute(b.get(i)), a.get(i));
        }
        assertTrue(after.length() * 5 < before.length() * 2, before.length() + " -> " + after.length() + " bytes");
        javax.xml.parsers.DocumentBuilderFactory xml = javax.xml.parsers.DocumentBuilderFactory.newInstance();
        xml.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
        xml.newDocumentBuilder().parse(new java.io.ByteArrayInputStream(after.getBytes(StandardCharsets.UTF_8)));
    }

    @Property(tries = 300)
    void longPathsDoNotDrift(@ForAll @Size(min = 1, max = 400) List<@DoubleRange(min = -900, max = 900) Double> xs) {
        StringBuilder d = new StringBuilder("M");
        for (int i = 0; i < xs.size(); i++) {
            double x = xs.get(i);
            double y = xs.get(xs.size() - 1 - i) * 0.37 + 0.123456789;
            d.append(i == 0 ? "" : i % 5 == 4 ? " Z M" : i % 3 == 0 ? " Q" : " L").append(x).append(',').append(y);
            if (i % 3 == 0 && i > 0 && i % 5 != 4) {
                d.append(' ').append(x + 1.25).append(',').append(y - 2.75);
            }
        }
        assertClose(absolute(d.toString()), absolute(SvgCompactor.path(d.toString())), d.toString());
    }

    @Test
    void linesOfOneStyleBecomeOnePathThatMovesOnlyAtGaps() {
        String s = "<line style=\"a\" x1=\"1\" x2=\"2\" y1=\"3\" y2=\"4\"/>\n"
            + "  <line style=\"a\" x1=\"2\" x2=\"5\" y1=\"4\" y2=\"6\"/>\n"
            + "<line style=\"a\" x1=\"7\" x2=\"8\" y1=\"9\" y2=\"10\"/>"
            + "<line style=\"b\" x1=\"0\" x2=\"1\" y1=\"0\" y2=\"1\"/><rect/>";
        assertEquals("<path style=\"a\" d=\"M1,3 L2,4 L5,6 M7,9 L8,10\"/><path style=\"b\" d=\"M0,0 L1,1\"/><rect/>",
            SvgCompactor.lines(s));
    }

    @Test
    void tenthsAreTheShortestDecimal() {
        assertEquals("1.2", SvgCompactor.tenths(12));
        assertEquals("1", SvgCompactor.tenths(10));
        assertEquals(".5", SvgCompactor.tenths(5));
        assertEquals("-.5", SvgCompactor.tenths(-5));
        assertEquals("-12.3", SvgCompactor.tenths(-123));
        assertEquals("0", SvgCompactor.tenths(0));
    }

    private static List<String> paths(String svg) {
        List<String> out = new ArrayList<>();
        Matcher m = D.matcher(svg);
        while (m.find()) {
            out.add(m.group(1));
        }
        return out;
    }

    private static void assertClose(List<double[]> want, List<double[]> got, String what) {
        assertEquals(want.size(), got.size(), () -> "points of " + what);
        for (int i = 0; i < want.size(); i++) {
            assertEquals(want.get(i)[0], got.get(i)[0], 0.0500001, "x of point " + i);
            assertEquals(want.get(i)[1], got.get(i)[1], 0.0500001, "y of point " + i);
        }
    }

    /** Every point a path's data names, in absolute coordinates; any mix of absolute and relative commands. */
    static List<double[]> absolute(String d) {
        Matcher t = Pattern.compile("[MLQCZmlqcz]|-?(?:\\d+\\.?\\d*|\\.\\d+)(?:[eE][-+]?\\d+)?").matcher(d);
        List<String> tok = new ArrayList<>();
        while (t.find()) {
            tok.add(t.group());
        }
        List<double[]> pts = new ArrayList<>();
        double cx = 0;
        double cy = 0;
        double sx = 0;
        double sy = 0;
        char cmd = 'M';
        int i = 0;
        while (i < tok.size()) {
            String s = tok.get(i);
            if (Character.isLetter(s.charAt(0))) {
                cmd = s.charAt(0);
                i++;
                if (cmd == 'Z' || cmd == 'z') {
                    cx = sx;
                    cy = sy;
                    pts.add(new double[] {cx, cy});
                }
                continue;
            }
            int n = switch (Character.toUpperCase(cmd)) {
                case 'Q' -> 2;
                case 'C' -> 3;
                default -> 1;
            };
            boolean rel = Character.isLowerCase(cmd);
            double bx = cx;
            double by = cy;
            for (int p = 0; p < n; p++) {
                double x = Double.parseDouble(tok.get(i++)) + (rel ? bx : 0);
                double y = Double.parseDouble(tok.get(i++)) + (rel ? by : 0);
                pts.add(new double[] {x, y});
                cx = x;
                cy = y;
            }
            if (cmd == 'M' || cmd == 'm') {
                sx = cx;
                sy = cy;
                cmd = rel ? 'l' : 'L';
            }
        }
        return pts;
    }
}

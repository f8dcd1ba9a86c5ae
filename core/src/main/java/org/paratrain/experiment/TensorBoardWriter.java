package org.paratrain.experiment;

import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32C;
import org.paratrain.experiment.tensorboard.Event;
import org.paratrain.experiment.tensorboard.HistogramProto;
import org.paratrain.experiment.tensorboard.Summary;

/**
 * An event file that TensorBoard reads: scalars and histograms by step, as
 * {@code tf.summary} and PyTorch's {@code SummaryWriter} write them.
 *
 * <p>The file is a sequence of records, each an {@code Event} message (protobuf-java, from
 * {@code tensorboard.proto}, whose field numbers are TensorBoard's): the record's length as 8
 * little-endian bytes, the masked CRC-32C of those 8 bytes, the message, and the masked CRC-32C
 * of the message. The mask is TFRecord's: the CRC rotated right by 15 bits, plus
 * {@code 0xa282ead8}. The first event names the format ({@code brain.Event:2}).
 *
 * <p>The file is {@code events.out.tfevents.SECONDS.HOST.paratrain} in the directory, created
 * new (an existing file is never written through). {@link #flush} after each step's values lets
 * a running TensorBoard show them; {@link #close} when done.
 */
public final class TensorBoardWriter implements Closeable {
    private static final int MASK_DELTA = 0xa282ead8;
    private final Path file;
    private final OutputStream out;
    private final CRC32C crc = new CRC32C();
    private final ByteBuffer header = ByteBuffer.allocate(12).order(ByteOrder.LITTLE_ENDIAN);
    private final ByteBuffer footer = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN);

    private TensorBoardWriter(Path file, OutputStream out) {
        this.file = file;
        this.out = out;
    }

    /**
     * Starts a new event file in {@code dir}, creating the directory if it is missing.
     *
     * @param dir the log directory, as {@code tensorboard --logdir} takes it
     * @return the writer, its first record written
     * @throws IOException if the directory cannot be made or the file created
     */
    public static TensorBoardWriter create(Path dir) throws IOException {
        Files.createDirectories(dir);
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            host = "localhost";
        }
        long seconds = System.currentTimeMillis() / 1000;
        Path file = null;
        OutputStream out = null;
        for (int k = 0; out == null; k++) {
            // Two runs started in the same second get files of their own.
            file = dir.resolve("events.out.tfevents." + seconds + "." + host + ".paratrain" + (k == 0 ? "" : "." + k));
            try {
                out = Files.newOutputStream(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
            } catch (java.nio.file.FileAlreadyExistsException e) {
                if (k >= 100) {
                    throw e;
                }
            }
        }
        TensorBoardWriter w = new TensorBoardWriter(file, new BufferedOutputStream(out));
        w.write(Event.newBuilder().setWallTime(now()).setFileVersion("brain.Event:2").build());
        w.flush();
        return w;
    }

    /** {@return the event file} */
    public Path file() {
        return file;
    }

    /**
     * Writes scalar values at a step; NaN values are left out (a metric not measured then).
     *
     * @param step   the x axis, e.g. the epoch
     * @param tags   the charts' names, e.g. {@code loss/train}
     * @param values one value a tag
     * @throws IOException if the file cannot be written
     */
    public void scalars(long step, String[] tags, double[] values) throws IOException {
        Summary.Builder s = Summary.newBuilder();
        for (int i = 0; i < tags.length; i++) {
            if (!Double.isNaN(values[i])) {
                s.addValue(Summary.Value.newBuilder().setTag(tags[i]).setSimpleValue((float) values[i]));
            }
        }
        if (s.getValueCount() > 0) {
            write(Event.newBuilder().setWallTime(now()).setStep(step).setSummary(s).build());
        }
    }

    /**
     * Writes a histogram of {@code values} at a step, in {@code buckets} buckets of equal width
     * between the smallest and the largest value (TensorBoard draws any bucket limits).
     *
     * @param step    the x axis, e.g. the epoch
     * @param tag     the chart's name, e.g. {@code params}
     * @param values  the values; non-finite ones are left out
     * @param buckets the number of buckets, at least 1
     * @throws IOException if the file cannot be written
     */
    public void histogram(long step, String tag, java.nio.DoubleBuffer values, int buckets) throws IOException {
        double min = Double.POSITIVE_INFINITY;
        double max = Double.NEGATIVE_INFINITY;
        double sum = 0;
        double squares = 0;
        long n = 0;
        for (int i = values.position(); i < values.limit(); i++) {
            double v = values.get(i);
            if (Double.isFinite(v)) {
                min = Math.min(min, v);
                max = Math.max(max, v);
                sum += v;
                squares += v * v;
                n++;
            }
        }
        if (n == 0) {
            return;
        }
        double width = (max - min) / buckets;
        double[] counts = new double[buckets];
        for (int i = values.position(); i < values.limit(); i++) {
            double v = values.get(i);
            if (Double.isFinite(v)) {
                int b = width == 0 ? buckets - 1 : (int) Math.min(buckets - 1, Math.max(0, Math.ceil((v - min) / width) - 1));
                counts[b]++;
            }
        }
        HistogramProto.Builder h = HistogramProto.newBuilder().setMin(min).setMax(max).setNum(n).setSum(sum)
            .setSumSquares(squares);
        for (int b = 0; b < buckets; b++) {
            h.addBucketLimit(b == buckets - 1 ? max : min + (b + 1) * width).addBucket(counts[b]);
        }
        write(Event.newBuilder().setWallTime(now()).setStep(step).setSummary(Summary.newBuilder()
            .addValue(Summary.Value.newBuilder().setTag(tag).setHisto(h))).build());
    }

    /**
     * Hands what was written to the file, for a running TensorBoard to see.
     *
     * @throws IOException if the file cannot be written
     */
    public void flush() throws IOException {
        out.flush();
    }

    @Override
    public void close() throws IOException {
        out.close();
    }

    /** One record: length, its masked CRC, the message, its masked CRC. */
    private void write(Event e) throws IOException {
        byte[] data = e.toByteArray();
        header.clear();
        header.putLong(data.length);
        crc.reset();
        crc.update(header.array(), 0, 8);
        header.putInt(mask(crc.getValue()));
        out.write(header.array(), 0, 12);
        out.write(data);
        crc.reset();
        crc.update(data);
        footer.clear();
        footer.putInt(mask(crc.getValue()));
        out.write(footer.array(), 0, 4);
    }

    /** TFRecord's masked CRC: rotated right by 15 bits, plus a constant, so a CRC of CRCs is not a CRC. */
    static int mask(long crc) {
        int c = (int) crc;
        return ((c >>> 15) | (c << 17)) + MASK_DELTA;
    }

    private static double now() {
        return System.currentTimeMillis() / 1000.0;
    }
}

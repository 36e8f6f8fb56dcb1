package io.sparkattention.ml.training;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.KryoSerializable;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import io.sparkattention.exec.Sliceable;
import io.sparkattention.nn.GradientSums;
import io.sparkattention.nn.GradientSumsCodec;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.OutputStream;
import java.io.Serializable;
import java.io.UncheckedIOException;

/**
 * A leaf's, a group's or the whole sample's sums over its rows at one point of the parameters:
 * Σ weighted loss, Σ weight, the row count, the gradient sums (null for a loss-only pass) and the
 * largest value count a leaf task's result carried ({@link GradientSums#values()}). Cut into
 * slices for the sliced merge, the scalars ride in slice 0 and the gradient sums are cut by
 * {@link GradientSums#slice}; slices past 0 carry zero scalars.
 *
 * <p>They travel (the shuffle to the merge tasks, the task results) as their scalars and
 * {@link GradientSumsCodec}'s bytes, under Kryo ({@link KryoSerializable}) and Java serialization
 * alike: Kryo's own array writer goes value by value, 4–5 times slower than the codec's copies.
 */
final class StepSums implements Serializable, KryoSerializable, Sliceable<StepSums> {

    private static final long serialVersionUID = 4L;

    double loss;
    double weight;
    long rows;
    /** Set once, when made or read; travels as {@link GradientSumsCodec}'s bytes. */
    transient GradientSums grad;
    long largestTaskValues;
    /**
     * Within a leaf task: the sampled rows not yet handed to the evaluator, carried from one
     * partition of the leaf's run to the next (null before the leaf's first partition and after its
     * last). Never shipped: the leaf's last partition empties it.
     */
    transient java.util.List<?> run;

    StepSums(GradientSums grad) {
        this.grad = grad;
    }

    /** Adds {@code other}'s sums into these (the gradients by {@link GradientSums#add}) and returns this. */
    StepSums add(StepSums other) {
        loss += other.loss;
        weight += other.weight;
        rows += other.rows;
        if (grad != null) {
            grad.add(other.grad);
        }
        largestTaskValues = Math.max(largestTaskValues, other.largestTaskValues);
        return this;
    }

    @Override
    public StepSums slice(int s, int count) {
        StepSums part = new StepSums(grad == null ? null : grad.slice(s, count));
        if (s == 0) {
            part.loss = loss;
            part.weight = weight;
            part.rows = rows;
            part.largestTaskValues = largestTaskValues;
        }
        return part;
    }

    @Override
    public StepSums addSlice(int s, int count, StepSums part) {
        if (s == 0) {
            loss += part.loss;
            weight += part.weight;
            rows += part.rows;
            largestTaskValues = Math.max(largestTaskValues, part.largestTaskValues);
        }
        if (grad != null) {
            grad.addSlice(s, count, part.grad);
        }
        return this;
    }

    @Override
    public void write(Kryo kryo, Output output) {
        output.writeDouble(loss);
        output.writeDouble(weight);
        output.writeLong(rows);
        output.writeLong(largestTaskValues);
        try {
            writeGrad(output);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void read(Kryo kryo, Input input) {
        loss = input.readDouble();
        weight = input.readDouble();
        rows = input.readLong();
        largestTaskValues = input.readLong();
        try {
            grad = readGrad(input);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void writeObject(ObjectOutputStream out) throws IOException {
        out.defaultWriteObject();
        writeGrad(out);
    }

    private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
        in.defaultReadObject();
        grad = readGrad(in);
    }

    private void writeGrad(OutputStream stream) throws IOException {
        DataOutputStream out = new DataOutputStream(stream);
        out.writeBoolean(grad != null);
        if (grad != null) {
            GradientSumsCodec.write(grad, out);
        }
    }

    private static GradientSums readGrad(InputStream stream) throws IOException {
        DataInputStream in = new DataInputStream(stream);
        return in.readBoolean() ? GradientSumsCodec.read(in) : null;
    }

    /** The weighted mean loss Σ loss / Σ weight. */
    double meanLoss() {
        return loss / weight;
    }
}

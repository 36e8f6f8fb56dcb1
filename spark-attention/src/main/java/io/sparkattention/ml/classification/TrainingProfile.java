package io.sparkattention.ml.classification;

import java.io.Serializable;
import java.util.Iterator;
import java.util.List;

/**
 * What validation needs to know of one partition's decoded rows: how many there are, their total
 * weight, their embedding width, their largest label, and the first unusable row. Computed by one
 * pass over the cached rows, which also materialises the cache; {@link #combine} merges the
 * partitions' profiles in partition order, so a row is named by its position in the input.
 */
final class TrainingProfile implements Serializable {

    private static final long serialVersionUID = 1L;

    long rows;
    double weight;
    /** The embedding width of the partition's rows; -1 before the first valid row. */
    int width = -1;
    int maxLabel = -1;
    /** The first problem and its row's position, within the partition, then the input. */
    String problem;
    long problemRow = -1;

    /** The profile of one partition; stops at its first unusable row. */
    static TrainingProfile of(Iterator<TrainingRow> rows, String featuresCol) {
        TrainingProfile p = new TrainingProfile();
        while (rows.hasNext() && p.problem == null) {
            TrainingRow r = rows.next();
            if (r.problem == null && p.width >= 0 && r.width() != p.width) {
                p.fail(p.rows, "column " + featuresCol + " has " + r.width() + " values per token, expected " + p.width
                    + " (as the rows before)");
            } else if (r.problem != null) {
                p.fail(p.rows, r.problem);
            } else {
                p.width = r.width();
                p.maxLabel = Math.max(p.maxLabel, r.label);
                p.weight += r.weight;
            }
            p.rows++;
        }
        return p;
    }

    private void fail(long row, String message) {
        problem = message;
        problemRow = row;
    }

    /**
     * The profile of the whole input from its partitions' profiles, in partition order: rows are
     * numbered from 0 across partitions, and the first problem in input order wins.
     */
    static TrainingProfile combine(List<TrainingProfile> partitions, String featuresCol) {
        TrainingProfile total = new TrainingProfile();
        for (TrainingProfile p : partitions) {
            if (p.problem != null) {
                total.fail(total.rows + p.problemRow, p.problem);
                return total;
            }
            if (p.width >= 0 && total.width >= 0 && p.width != total.width) {
                total.fail(total.rows, "column " + featuresCol + " has " + p.width + " values per token, expected "
                    + total.width + " (as the rows before)");
                return total;
            }
            total.maxLabel = Math.max(total.maxLabel, p.maxLabel);
            if (p.width >= 0) {
                total.width = p.width;
            }
            total.weight += p.weight;
            total.rows += p.rows;
        }
        return total;
    }
}

package io.sparkattention.ml.lm;

import io.sparkattention.gpt.TokenBlock;
import io.sparkattention.rows.TokenIds;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.sql.Dataset;

import java.util.ArrayList;
import java.util.List;

/**
 * The sequences of a {@link GptLanguageModeler} fit: the training set's rows as ids
 * ({@link LanguageModelInput}, {@link TrainingIds}), made into sequences (packed blocks or one per
 * row, {@link TokenBlocks}), a held-out fraction set aside ({@link HeldOut}) or a validation set
 * made the same way, each laid out in partitions of consecutive keys and cached. {@link #close}
 * unpersists them.
 */
final class LanguageModelData implements AutoCloseable {

    /** The training sequences, keyed 0 … {@link #trainingCount} − 1, laid out. */
    final JavaRDD<TokenBlock> training;
    final long trainingCount;
    /** The validation sequences, laid out, or null without validation. */
    final JavaRDD<TokenBlock> validation;
    final long validationCount;

    private final TokenBlocks.Laid laidTraining;
    private final TokenBlocks.Laid laidValidation;

    private LanguageModelData(TokenBlocks.Laid training, TokenBlocks.Laid validation) {
        this.laidTraining = training;
        this.laidValidation = validation;
        this.training = training.blocks();
        this.trainingCount = training.count();
        this.validation = validation == null ? null : validation.blocks();
        this.validationCount = validation == null ? 0 : validation.count();
    }

    /**
     * Reads, checks and lays out the fit's sequences.
     *
     * @param validationSet a validation set with the training set's columns, or null
     * @param partitions    the partitions each set is laid out in
     * @throws IllegalArgumentException naming the row, column or param that does not fit
     */
    static LanguageModelData of(LanguageModelerParams<?> params, StartingModel start, Dataset<?> trainingSet,
                                Dataset<?> validationSet, int partitions) {
        HeldOut split = new HeldOut(params.getValidationFraction());
        boolean heldOut = params.getValidationFraction() > 0;
        if (heldOut && validationSet != null) {
            throw new IllegalArgumentException("validationFraction " + params.getValidationFraction() + " and a "
                + "validation set both given: hold out a fraction of the training set or give a validation set");
        }
        List<TrainingIds> read = new ArrayList<>();
        try {
            TokenBlocks.Keyed all = sequences(params, start, trainingSet, "the training set", "row", read);
            TokenBlocks.Keyed training = heldOut ? TokenBlocks.side(all, split, false) : all;
            TokenBlocks.Keyed validation = heldOut ? TokenBlocks.side(all, split, true)
                : validationSet == null ? null : sequences(params, start, validationSet, "the validation set",
                    "validation row", read);
            if (heldOut && validation.count() == 0) {
                throw new IllegalArgumentException("validationFraction " + params.getValidationFraction() + " holds "
                    + "out none of the " + all.count() + " sequences; give a larger fraction or more rows");
            }
            TokenBlocks.Laid laidTraining = TokenBlocks.layOut(training, partitions,
                "GptLanguageModeler training sequences (" + partitions + " partitions)");
            try {
                return new LanguageModelData(laidTraining, validation == null ? null : TokenBlocks.layOut(validation,
                    partitions, "GptLanguageModeler validation sequences (" + partitions + " partitions)"));
            } catch (RuntimeException e) {
                laidTraining.close();
                throw e;
            }
        } finally {
            // The laid-out sequences are materialised (or the fit failed): the decoded ids are no longer needed.
            read.forEach(TrainingIds::close);
        }
    }

    /** A set's sequences: its rows' ids packed into blocks, or each row one sequence. */
    private static TokenBlocks.Keyed sequences(LanguageModelerParams<?> params, StartingModel start, Dataset<?> set,
                                               String which, String rowName, List<TrainingIds> read) {
        LanguageModelInput input = LanguageModelInput.of(set, params.getTextCol(), params.getIdsCol(),
            start.tokenizer(), which);
        boolean packing = params.getPacking();
        int positions = start.config().positions();
        int separator = packing ? TokenizerFile.endOfText(start.tokenizer()) : TokenizerFile.NONE;
        TrainingIds ids = TrainingIds.read(input.rows(), input.column(), input.shownAs(), rowName,
            start.config().vocabSize(), packing ? Integer.MAX_VALUE : positions, TokenIds.positions("model's", positions)
                + " (n_positions; packing false makes each row one sequence)", separator >= 0 ? 1 : 0);
        read.add(ids);
        return packing ? TokenBlocks.packed(ids, start.blockSize(), separator) : TokenBlocks.sequences(ids);
    }

    @Override
    public void close() {
        laidTraining.close();
        if (laidValidation != null) {
            laidValidation.close();
        }
    }
}

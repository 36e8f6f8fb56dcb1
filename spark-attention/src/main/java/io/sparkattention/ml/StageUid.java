package io.sparkattention.ml;

import java.util.Objects;

/**
 * Hands a stage's uid to MLlib's Scala constructors. A Scala stage receives its uid before its
 * superclasses run, and their params ({@code featuresCol}, {@code labelCol}...) record it as their
 * parent while they are built; a Java subclass can only assign fields after {@code super()}.
 * So the stage's public constructor parks the uid ({@link #park}, in the argument of
 * {@code this(...)}, evaluated before {@code super()}), {@code uid()} answers from
 * {@link #current} while the field is still unset, and the private constructor that receives the
 * parked uid {@linkplain #take takes} it back once it assigns the field.
 */
public final class StageUid {

    private static final ThreadLocal<String> PENDING = new ThreadLocal<>();

    private final String uid;

    private StageUid(String uid) {
        this.uid = uid;
    }

    /** Parks {@code uid} for the superclass constructors of the stage being built on this thread. */
    public static StageUid park(String uid) {
        PENDING.set(Objects.requireNonNull(uid, "uid"));
        return new StageUid(uid);
    }

    /** The parked uid, while a stage is under construction on this thread. */
    public static String current() {
        String uid = PENDING.get();
        if (uid == null) {
            throw new IllegalStateException("no stage uid is being constructed on this thread");
        }
        return uid;
    }

    /** Clears the parked uid once the stage holds it, and returns it. */
    public String take() {
        PENDING.remove();
        return uid;
    }
}

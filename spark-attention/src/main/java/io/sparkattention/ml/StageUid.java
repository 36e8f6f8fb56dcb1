package io.sparkattention.ml;

import java.util.Objects;

/**
 * Hands a stage's uid to MLlib's Scala constructors. A Scala stage receives its uid before its
 * superclasses run, and their params ({@code featuresCol}, {@code labelCol}...) record it as their
 * parent while they are built; a Java subclass can only assign fields after {@code super()}.
 * So the Java constructor parks the uid here (in an argument of {@code this(...)}, evaluated
 * before {@code super()}), {@code uid()} answers from here while the field is still unset, and
 * the constructor takes it back once the field is assigned.
 */
public final class StageUid {

    private static final ThreadLocal<String> PENDING = new ThreadLocal<>();

    private StageUid() {
    }

    /** Parks {@code uid} for the superclass constructors of the stage being built on this thread. */
    public static String pending(String uid) {
        PENDING.set(Objects.requireNonNull(uid, "uid"));
        return uid;
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
    public static String taken(String uid) {
        PENDING.remove();
        return uid;
    }
}

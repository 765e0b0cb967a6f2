package dev.sluice.wal;

/**
 * What a log holds and has done, read at one moment.
 *
 * @param sizeBytes bytes of all segments on disk
 * @param segments segment files
 * @param pendingAppends appends accepted and not yet written
 * @param recoveredRecords records handed back at start
 * @param corruptRecords damaged records skipped at start
 * @param tornBytes bytes cut off a torn tail at start
 * @param groups groups written
 * @param groupedRecords records written in those groups
 * @param forces forces (fsync) done
 * @param forceNanos time spent in them
 * @param maxForceNanos the longest one
 * @param failedWrites groups whose write failed (their appends were answered as retryable)
 * @param reusedSegments segments started in the file of a done one
 */
public record LogStatistics(
    long sizeBytes,
    int segments,
    int pendingAppends,
    long recoveredRecords,
    long corruptRecords,
    long tornBytes,
    long groups,
    long groupedRecords,
    long forces,
    long forceNanos,
    long maxForceNanos,
    long failedWrites,
    long reusedSegments) {}

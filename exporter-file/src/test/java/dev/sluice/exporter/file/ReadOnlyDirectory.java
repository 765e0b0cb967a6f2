package dev.sluice.exporter.file;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * Makes a directory refuse new files and renames until closed: by its permissions, and where those
 * do not bind (tests running as root) by the immutable attribute ({@code chattr +i}). Checked by
 * trying, so a test never passes against a directory that is in fact writable.
 */
final class ReadOnlyDirectory implements AutoCloseable {
  private static final Set<PosixFilePermission> READ_ONLY =
      PosixFilePermissions.fromString("r-x------");
  private static final Set<PosixFilePermission> WRITABLE =
      PosixFilePermissions.fromString("rwx------");

  private final Path directory;
  private boolean immutable;

  private ReadOnlyDirectory(Path directory) {
    this.directory = directory;
  }

  static ReadOnlyDirectory of(Path directory) throws Exception {
    ReadOnlyDirectory readOnly = new ReadOnlyDirectory(directory);
    Files.setPosixFilePermissions(directory, READ_ONLY);
    if (readOnly.refusesNewFiles()) {
      return readOnly;
    }
    readOnly.immutable = chattr("+i", directory);
    if (readOnly.immutable && readOnly.refusesNewFiles()) {
      return readOnly;
    }
    readOnly.close();
    Assumptions.abort("cannot make a directory read-only here");
    return readOnly;
  }

  private boolean refusesNewFiles() {
    Path probe = directory.resolve(".probe");
    try {
      Files.createFile(probe);
      Files.delete(probe);
      return false;
    } catch (IOException expected) {
      return true;
    }
  }

  private static boolean chattr(String change, Path directory) throws Exception {
    try {
      Process process =
          new ProcessBuilder("chattr", change, directory.toString())
              .redirectErrorStream(true)
              .start();
      process.getInputStream().readAllBytes();
      return process.waitFor(10, TimeUnit.SECONDS) && process.exitValue() == 0;
    } catch (IOException noChattr) {
      return false;
    }
  }

  @Override
  public void close() throws Exception {
    if (immutable) {
      chattr("-i", directory);
      immutable = false;
    }
    Files.setPosixFilePermissions(directory, WRITABLE);
  }
}

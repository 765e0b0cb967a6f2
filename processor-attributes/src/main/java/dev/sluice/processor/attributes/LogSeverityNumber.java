package dev.sluice.processor.attributes;

import dev.sluice.component.ConfigProblems;
import dev.sluice.component.Validatable;
import dev.sluice.pdata.view.LogRecordView;
import java.util.Locale;

/**
 * {@code log_severity_number}: a log record matches when its severity number is at least {@code
 * min} (a number 1 to 24 or a name: {@code trace}, {@code debug3}, {@code INFO}, {@code warn4},
 * ...), or, with {@code match_undefined}, when it has none (0).
 */
public record LogSeverityNumber(Object min, boolean matchUndefined) implements Validatable {
  private static final String[] NAMES = {"trace", "debug", "info", "warn", "error", "fatal"};

  /** The number of each name's first level: {@code info} is INFO, {@code info2} INFO + 1, ... */
  private static final int[] FIRST_LEVELS = {
    LogRecordView.SEVERITY_TRACE,
    LogRecordView.SEVERITY_DEBUG,
    LogRecordView.SEVERITY_INFO,
    LogRecordView.SEVERITY_WARN,
    LogRecordView.SEVERITY_ERROR,
    LogRecordView.SEVERITY_FATAL
  };

  private static final int MAX = LogRecordView.SEVERITY_FATAL4;

  @Override
  public void validate(ConfigProblems problems) {
    if (minNumber() < 0) {
      problems.add(
          "min",
          "unrecognized severity \""
              + min
              + "\"; use a number from 1 to 24 or a name such as info, warn2 or ERROR");
    }
  }

  /** {@code min} as a severity number: 0 when not set, -1 when not recognised. */
  int minNumber() {
    if (min == null) {
      return 0;
    }
    if (min instanceof Long number) {
      return number >= 0 && number <= MAX ? number.intValue() : -1;
    }
    String text = String.valueOf(min).trim().toLowerCase(Locale.ROOT);
    for (int n = 0; n < NAMES.length; n++) {
      if (!text.startsWith(NAMES[n])) {
        continue;
      }
      String level = text.substring(NAMES[n].length());
      if (level.isEmpty()) {
        return FIRST_LEVELS[n];
      }
      if (level.length() == 1 && level.charAt(0) >= '2' && level.charAt(0) <= '4') {
        return FIRST_LEVELS[n] + (level.charAt(0) - '1');
      }
    }
    try {
      int number = Integer.parseInt(text);
      return number >= 0 && number <= MAX ? number : -1;
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /** Whether a record of severity number {@code number} matches. */
  boolean matches(int number) {
    return number == 0 ? matchUndefined : number >= minNumber();
  }
}

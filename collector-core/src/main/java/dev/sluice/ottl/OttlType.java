package dev.sluice.ottl;

/** What the compiler knows of an expression's type; {@link #ANY} is known only when evaluated. */
enum OttlType {
  STRING("string"),
  INT("int"),
  DOUBLE("double"),
  BOOL("bool"),
  BYTES("bytes"),
  MAP("map"),
  LIST("list"),
  NIL("nil"),
  /** An attribute or body value: any of the others, known when evaluated. */
  ANY("any");

  final String label;

  OttlType(String label) {
    this.label = label;
  }

  boolean isNumeric() {
    return this == INT || this == DOUBLE;
  }

  /** What a value of this kind is when evaluated. */
  static OttlType of(Value.Kind kind) {
    return switch (kind) {
      case STRING -> STRING;
      case INT -> INT;
      case DOUBLE -> DOUBLE;
      case BOOL -> BOOL;
      case BYTES -> BYTES;
      case MAP -> MAP;
      case LIST -> LIST;
      case NIL -> NIL;
    };
  }
}

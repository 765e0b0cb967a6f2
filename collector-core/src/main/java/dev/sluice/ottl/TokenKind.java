package dev.sluice.ottl;

/** The kinds of token of the OTTL grammar. */
enum TokenKind {
  IDENTIFIER("a name"),
  STRING("a string"),
  INT("an integer"),
  FLOAT("a number"),
  BYTES("a byte literal"),
  LEFT_PAREN("'('"),
  RIGHT_PAREN("')'"),
  LEFT_BRACKET("'['"),
  RIGHT_BRACKET("']'"),
  LEFT_BRACE("'{'"),
  RIGHT_BRACE("'}'"),
  COMMA("','"),
  DOT("'.'"),
  COLON("':'"),
  ASSIGN("'='"),
  EQ("'=='"),
  NE("'!='"),
  LT("'<'"),
  LE("'<='"),
  GT("'>'"),
  GE("'>='"),
  PLUS("'+'"),
  MINUS("'-'"),
  STAR("'*'"),
  SLASH("'/'"),
  END("the end");

  final String description;

  TokenKind(String description) {
    this.description = description;
  }

  boolean isComparison() {
    return this == EQ || this == NE || this == LT || this == LE || this == GT || this == GE;
  }
}

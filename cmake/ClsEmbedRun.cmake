# Script mode: IN, OUT, SYMBOL.  Writes OUT as a C array of IN's bytes.
file(READ ${IN} hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," body "${hex}")
string(REGEX REPLACE "((0x[0-9a-f][0-9a-f],){16})" "\\1\n" body "${body}")
file(WRITE ${OUT} "/* Generated from ${IN}. */\nextern const char ${SYMBOL}[];\nconst char ${SYMBOL}[] = {\n${body}0x00};\n")

/* LuceneGolden.java: the reference for hyrax's keyword analyzer (src/retrieve/analyzer.h), run only
 * by hand in tools/, never at build or test time. Two jobs:
 *   tables   writes src/unicode/unicode_words.h: the per-code-point ICU folding of Lucene's
 *            ICUFoldingFilter (UTR #30 folding: case, accents, compatibility forms) and the script
 *            classes the analyzer needs (CJK bigram scripts, Southeast Asian scripts, Latin), from
 *            the ICU4J that lucene-analysis-icu ships.
 *   golden   writes tests/golden/analyzer_words.txt: for each line of inputs_text.txt the tokens of
 *            the two Lucene chains below, and for each line of inputs_identifiers.txt the tokens
 *            of WordDelimiterGraphFilter with preserve-original.
 * Run (Lucene 9.12.3 from Maven Central, Java 17):
 *   mvn -q -f tools/lucene_golden/pom.xml dependency:copy-dependencies -DoutputDirectory=$PWD/build/lucene
 *   javac -cp 'build/lucene/*' -d build/lucene tools/lucene_golden/LuceneGolden.java
 *   java -cp 'build/lucene/*:build/lucene' LuceneGolden tables > src/unicode/unicode_words.h
 *   java -cp 'build/lucene/*:build/lucene' LuceneGolden golden tools/lucene_golden > tests/golden/analyzer_words.txt
 *
 * The chains (hyrax's rules written as Lucene components; analyzer.h says the same in prose):
 *   exact     StandardTokenizer (UAX #29) -> drop <EMOJI> tokens -> CJKBigramFilter (Han, Hiragana,
 *             Katakana, Hangul) -> character bigrams of <SOUTHEAST_ASIAN> tokens (NGramTokenFilter
 *             2..2) -> WordDelimiterGraphFilter (word parts, number parts, case changes) -> LowerCaseFilter
 *   analysed  the same with EnglishPossessiveFilter after the tokenizer, then ICUFoldingFilter,
 *             English stop words, and Snowball English only on tokens whose letters are all Latin.
 *   ident     WhitespaceTokenizer -> WordDelimiterGraphFilter (the flags above + PRESERVE_ORIGINAL)
 *             -> LowerCaseFilter.
 */
import com.ibm.icu.lang.UCharacter;
import com.ibm.icu.lang.UProperty;
import com.ibm.icu.lang.UScript;
import com.ibm.icu.text.Normalizer2;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.lucene.analysis.miscellaneous.ConditionalTokenFilter;
import org.apache.lucene.analysis.LowerCaseFilter;
import org.apache.lucene.analysis.StopFilter;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.Tokenizer;
import org.apache.lucene.analysis.cjk.CJKBigramFilter;
import org.apache.lucene.analysis.core.TypeTokenFilter;
import org.apache.lucene.analysis.core.WhitespaceTokenizer;
import org.apache.lucene.analysis.en.EnglishAnalyzer;
import org.apache.lucene.analysis.en.EnglishPossessiveFilter;
import org.apache.lucene.analysis.icu.ICUFoldingFilter;
import org.apache.lucene.analysis.miscellaneous.WordDelimiterGraphFilter;
import org.apache.lucene.analysis.miscellaneous.WordDelimiterIterator;
import org.apache.lucene.analysis.ngram.NGramTokenFilter;
import org.apache.lucene.analysis.snowball.SnowballFilter;
import org.apache.lucene.analysis.standard.StandardTokenizer;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
import org.apache.lucene.analysis.tokenattributes.PositionIncrementAttribute;
import org.apache.lucene.analysis.tokenattributes.TypeAttribute;
import org.tartarus.snowball.ext.EnglishStemmer;

public class LuceneGolden {
    static final int CLASS_OTHER = 0, CLASS_CJK = 1, CLASS_SEA = 2, CLASS_LATIN = 3, CLASS_HANGUL = 4;
    static final int WDGF_FLAGS = WordDelimiterGraphFilter.GENERATE_WORD_PARTS
            | WordDelimiterGraphFilter.GENERATE_NUMBER_PARTS | WordDelimiterGraphFilter.SPLIT_ON_CASE_CHANGE;

    /* The analyzer's script class of a code point, as StandardTokenizer's grammar types it: Han,
     * Hiragana, Katakana (Word_Break) -> CJK; Hangul letters -> HANGUL (letters of UAX #29, so they
     * join digits and Latin letters in one word); Line_Break Complex_Context (Thai, Lao, Khmer,
     * Myanmar, ...) -> SEA; Latin script -> LATIN. These are the HX_US_* of unicode.h. */
    static int scriptClass(int cp) {
        int sc = UScript.getScript(cp);
        int wb = UCharacter.getIntPropertyValue(cp, UProperty.WORD_BREAK);
        int lb = UCharacter.getIntPropertyValue(cp, UProperty.LINE_BREAK);
        if (sc == UScript.HAN || sc == UScript.HIRAGANA || wb == UCharacter.WordBreak.KATAKANA)
            return CLASS_CJK;
        if (sc == UScript.HANGUL && wb == UCharacter.WordBreak.ALETTER)
            return CLASS_HANGUL;
        if (lb == UCharacter.LineBreak.COMPLEX_CONTEXT)
            return CLASS_SEA;
        if (sc == UScript.LATIN)
            return CLASS_LATIN;
        return CLASS_OTHER;
    }

    /* A token is stemmed when every letter in it is Latin (digits and marks do not count). */
    static boolean allLatin(CharSequence s) {
        for (int i = 0; i < s.length(); ) {
            int cp = Character.codePointAt(s, i);
            i += Character.charCount(cp);
            if (Character.isLetter(cp) && scriptClass(cp) != CLASS_LATIN)
                return false;
        }
        return true;
    }

    static void tables() {
        Normalizer2 fold = ICUFoldingFilter.NORMALIZER;
        StringBuilder out = new StringBuilder();
        out.append("/* unicode_words.h: GENERATED by tools/lucene_golden/LuceneGolden.java (tables), do not edit;\n"
                + " * included by src/unicode/unicode.c only. ICU ").append(com.ibm.icu.util.VersionInfo.ICU_VERSION)
                .append(" (Unicode ").append(UCharacter.getUnicodeVersion())
                .append(") as shipped with lucene-analysis-icu 9.12.3.\n"
                + " * hxi_uw_fold: code points whose ICUFoldingFilter folding (UTR #30) of the single character is not\n"
                + " * the character itself, sorted; each maps to len code points at hxi_uw_fold_pool[off] (len 0: removed).\n"
                + " * hxi_uw_class: ranges [first, last] of the script classes of unicode.h (HX_US_*), sorted. */\n"
                + "#ifndef HX_UNICODE_WORDS_H\n#define HX_UNICODE_WORDS_H\n\n");
        List<int[]> entries = new ArrayList<>();
        List<Integer> pool = new ArrayList<>();
        int max = 0;
        for (int cp = 0; cp < 0x110000; cp++) {
            if (cp >= 0xD800 && cp <= 0xDFFF)
                continue;
            String s = new String(Character.toChars(cp));
            String f = fold.normalize(s);
            if (f.equals(s))
                continue;
            int[] cps = f.codePoints().toArray();
            entries.add(new int[] {cp, pool.size(), cps.length});
            max = Math.max(max, cps.length);
            for (int c : cps)
                pool.add(c);
        }
        out.append("#define HX_UW_FOLD_MAX ").append(max).append("  /* longest folding */\n\n");
        out.append("typedef struct hxi_uw_fold_entry {\n    uint32_t cp;\n    uint16_t off;  /* into hxi_uw_fold_pool */\n"
                + "    uint8_t len;\n} hxi_uw_fold_entry;\n\n");
        out.append("static const uint32_t hxi_uw_fold_pool[").append(pool.size()).append("] = {");
        for (int i = 0; i < pool.size(); i++)
            out.append(i % 16 == 0 ? "\n    " : " ").append(String.format("0x%X,", pool.get(i)));
        out.append("\n};\n\nstatic const hxi_uw_fold_entry hxi_uw_fold[").append(entries.size()).append("] = {");
        for (int i = 0; i < entries.size(); i++) {
            int[] e = entries.get(i);
            out.append(i % 8 == 0 ? "\n    " : " ").append(String.format("{0x%X, %d, %d},", e[0], e[1], e[2]));
        }
        out.append("\n};\n\n");
        if (pool.size() > 65535)
            throw new IllegalStateException("fold pool over 16 bits");
        List<int[]> ranges = new ArrayList<>();
        int start = 0, cls = scriptClass(0);
        for (int cp = 1; cp <= 0x110000; cp++) {
            int c = cp < 0x110000 ? scriptClass(cp) : -1;
            if (c != cls) {
                if (cls != CLASS_OTHER)
                    ranges.add(new int[] {start, cp - 1, cls});
                start = cp;
                cls = c;
            }
        }
        out.append("typedef struct hxi_uw_range {\n    uint32_t first, last;\n    uint8_t cls;\n} hxi_uw_range;\n\n");
        out.append("static const hxi_uw_range hxi_uw_class[").append(ranges.size()).append("] = {");
        for (int i = 0; i < ranges.size(); i++) {
            int[] r = ranges.get(i);
            out.append(i % 6 == 0 ? "\n    " : " ").append(String.format("{0x%X, 0x%X, %d},", r[0], r[1], r[2]));
        }
        out.append("\n};\n\n#endif\n");
        System.out.print(out);
    }

    static TokenStream words(Tokenizer t, boolean analysed) {
        TokenStream ts = new TypeTokenFilter(t, Set.of("<EMOJI>"), false);
        if (analysed)
            ts = new EnglishPossessiveFilter(ts);
        ts = new CJKBigramFilter(ts);
        ts = new ConditionalTokenFilter(ts, in -> new NGramTokenFilter(in, 2, 2, false)) {
            final TypeAttribute type = addAttribute(TypeAttribute.class);
            @Override
            protected boolean shouldFilter() {
                return type.type().equals("<SOUTHEAST_ASIAN>");
            }
        };
        ts = new WordDelimiterGraphFilter(ts, false, WordDelimiterIterator.DEFAULT_WORD_DELIM_TABLE, WDGF_FLAGS, null);
        if (!analysed)
            return new LowerCaseFilter(ts);
        ts = new ICUFoldingFilter(ts);
        ts = new StopFilter(ts, EnglishAnalyzer.ENGLISH_STOP_WORDS_SET);
        return new ConditionalTokenFilter(ts, in -> new SnowballFilter(in, new EnglishStemmer())) {
            final CharTermAttribute term = addAttribute(CharTermAttribute.class);
            @Override
            protected boolean shouldFilter() {
                return allLatin(term);
            }
        };
    }

    static TokenStream identifiers(Tokenizer t) {
        TokenStream ts = new WordDelimiterGraphFilter(t, false, WordDelimiterIterator.DEFAULT_WORD_DELIM_TABLE,
                WDGF_FLAGS | WordDelimiterGraphFilter.PRESERVE_ORIGINAL, null);
        return new LowerCaseFilter(ts);
    }

    /* "term@pos term@pos ..." (with positions: withPos) of text through ts, whose tokenizer is t.
     * Positions are renumbered densely (0, 1, 2, ... in order), as hyrax leaves no position for a
     * dropped emoji; tokens Lucene puts at one position (a whole and its first part, the n-grams of
     * one Southeast Asian run) keep sharing it. */
    static String run(Tokenizer t, TokenStream ts, String text, boolean withPos) throws IOException {
        t.setReader(new StringReader(text));
        CharTermAttribute term = ts.addAttribute(CharTermAttribute.class);
        PositionIncrementAttribute inc = ts.addAttribute(PositionIncrementAttribute.class);
        StringBuilder sb = new StringBuilder();
        ts.reset();
        int pos = -1;
        while (ts.incrementToken()) {
            if (inc.getPositionIncrement() > 0)
                pos++;  /* dense: a removed emoji or stop word leaves no gap */
            if (sb.length() > 0)
                sb.append(' ');
            sb.append(term);
            if (withPos)
                sb.append('@').append(pos);
        }
        ts.end();
        ts.close();
        return sb.toString();
    }

    static String escape(String s) {
        return s.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n");
    }

    static void golden(Path dir) throws IOException {
        StringBuilder out = new StringBuilder();
        Tokenizer t1, t2, t3;
        out.append("# analyzer_words.txt: GENERATED by tools/lucene_golden/LuceneGolden.java (golden) from Lucene 9.12.3;\n"
                + "# read by tests/test_words.c. Records: `text<TAB>input` then `exact<TAB>term@pos ...` and\n"
                + "# `analysed<TAB>term ...`; `ident<TAB>input` then `parts<TAB>term@pos ...`. Inputs: inputs_*.txt.\n");
        for (String line : Files.readAllLines(dir.resolve("inputs_text.txt"), StandardCharsets.UTF_8)) {
            if (line.isEmpty() || line.startsWith("#"))
                continue;
            String text = line.replace("\\n", "\n");
            out.append("text\t").append(escape(text)).append('\n');
            out.append("exact\t").append(run(t1 = new StandardTokenizer(), words(t1, false), text, true)).append('\n');
            out.append("analysed\t").append(run(t2 = new StandardTokenizer(), words(t2, true), text, false)).append('\n');
        }
        for (String line : Files.readAllLines(dir.resolve("inputs_identifiers.txt"), StandardCharsets.UTF_8)) {
            if (line.isEmpty() || line.startsWith("#"))
                continue;
            out.append("ident\t").append(line).append('\n');
            out.append("parts\t").append(run(t3 = new WhitespaceTokenizer(), identifiers(t3), line, true)).append('\n');
        }
        System.out.print(out);
    }

    public static void main(String[] args) throws IOException {
        if (args.length == 1 && args[0].equals("tables"))
            tables();
        else if (args.length == 2 && args[0].equals("golden"))
            golden(Path.of(args[1]));
        else
            throw new IllegalArgumentException("usage: LuceneGolden tables | golden DIR");
    }
}

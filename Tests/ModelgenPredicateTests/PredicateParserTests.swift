@testable import ModelgenPredicate
import Testing

@Suite struct PredicateParserTests {
    @Test func parsesComparisonsWithOptionsAndVariables() throws {
        let p = try PredicateParser.parsePredicate("author.lastName ==[c] $NAME AND likes >= $MIN_LIKES")
        guard case .and(let items, _) = p, items.count == 2, case .comparison(let first) = items[0] else {
            Issue.record("expected AND of two comparisons, got \(p)"); return
        }
        #expect(first.operator == .equal)
        #expect(first.options == [.caseInsensitive])
        #expect(first.left.description == "author.lastName")
        #expect(first.left.range == SourceRange(0, 15))
        #expect(p.variableNames == ["NAME", "MIN_LIKES"])
    }

    @Test func precedenceIsNotThenAndThenOr() throws {
        let p = try PredicateParser.parsePredicate("a == 1 OR b == 2 AND NOT c == 3")
        #expect(p.description == "a == 1 OR b == 2 AND NOT c == 3")
        guard case .or(let items, _) = p else { Issue.record("expected OR at the top"); return }
        guard case .and = items[1] else { Issue.record("expected AND below OR"); return }
        let grouped = try PredicateParser.parsePredicate("(a == 1 OR b == 2) AND c == 3")
        #expect(grouped.description == "(a == 1 OR b == 2) AND c == 3")
    }

    @Test func aggregatesModifiersAndCollectionOperators() throws {
        let p = try PredicateParser.parsePredicate("ANY tags.name IN {'a', \"b\"} && comments.@count > 2 || rating BETWEEN {1, 5}")
        let comparisons = p.comparisons
        #expect(comparisons.count == 3)
        #expect(comparisons[0].modifier == .any)
        #expect(comparisons[0].operator == .in)
        #expect(comparisons[1].left.description == "comments.@count")
        #expect(comparisons[2].operator == .between)
        #expect(comparisons[2].right.description == "{1, 5}")
    }

    @Test func literalsAndKeywordsAreCaseInsensitive() throws {
        let p = try PredicateParser.parsePredicate("flag == yes and name != nil or x == -2.5e3 and not y beginswith[cd] 'it\\'s'")
        let c = p.comparisons
        #expect(c[0].right.kind == .bool(true))
        #expect(c[1].right.kind == .null)
        #expect(c[2].right.kind == .number("-2.5e3"))
        #expect(c[3].options == [.caseInsensitive, .diacriticInsensitive])
        #expect(c[3].right.kind == .string("it's"))
    }

    @Test func escapedKeywordIsAKey() throws {
        let p = try PredicateParser.parsePredicate("#in == 1")
        #expect(p.comparisons[0].left.kind == .keyPath([KeyPathComponent(.key("in"), range: SourceRange(0, 3))]))
    }

    /// A key spelled like a reserved word prints with its `#`, so the text reads back as the same
    /// predicate (found by fuzz-predicate: `ANY t= #YES || shelf == nil` printed `t == YES`, a Boolean).
    @Test func escapedKeywordsPrintEscaped() throws {
        for text in ["ANY t= #YES || shelf == nil", "#in.count > #subquery", "#self == nil AND #no BETWEEN {1, 2}", "#yes.size == $X"] {
            let printed = try PredicateParser.parsePredicate(text).description
            let again = try PredicateParser.parsePredicate(printed)
            #expect(again.description == printed, "\(text) → \(printed) → \(again.description)")
        }
        let printed = try PredicateParser.parsePredicate("ANY t= #YES || shelf == nil").description
        #expect(printed.contains("#YES") && !printed.contains(" YES"), "\(printed)")
    }

    /// Every reserved word (the one list the parser and the printer share): written `#word` it is a key,
    /// which prints escaped and reads back as the same key; written bare, an operator or value word is
    /// never read as a key (a call word is one unless `(` follows it).
    @Test(arguments: ReservedWords.all.sorted())
    func everyReservedWordEscapesAsAKey(_ word: String) throws {
        for spelling in [word, word.lowercased()] {
            let escaped = try PredicateParser.parsePredicate("#\(spelling) == 1")
            #expect(escaped.description == "#\(spelling) == 1")
            #expect(try PredicateParser.parsePredicate(escaped.description) == escaped)
            if !ReservedWords.calls.contains(word), case .comparison(let c)? = try? PredicateParser.parsePredicate("\(spelling) == 1"),
               case .keyPath(let components) = c.left.kind {
                Issue.record("bare '\(spelling)' was read as the key path \(components)")
            }
        }
    }

    @Test(arguments: [
        ("title ==", 8, "expected a key path"),
        ("title = = 'x'", 8, "expected a key path"),
        ("title == 'x", 9, "unterminated string"),
        ("title ~ 'x'", 6, "unexpected character"),
        ("(a == 1", 7, "expected ')'"),
        ("a == 1 b == 2", 7, "unexpected 'b'"),
        ("a.@size > 1", 2, "unknown collection operator"),
        ("a ==[x] 1", 4, "comparison options"),
        ("AND == 1", 0, "reserved word"),
        ("", 0, "expected a comparison"),
        ("SUBQUERY(tags, t, t.name == 'a').@count > 0", 15, "expected the variable of SUBQUERY"),
        ("SUBQUERY(tags, $t $t.name == 'a').@count > 0", 18, "',' after the variable of SUBQUERY"),
        ("SUBQUERY(tags, $t, $t.name == 'a' > 0", 34, "')' to close SUBQUERY"),
    ])
    func reportsSyntaxErrorsAtTheirOffset(text: String, offset: Int, message: String) {
        #expect {
            _ = try PredicateParser.parsePredicate(text)
        } throws: { error in
            guard let error = error as? PredicateSyntaxError else { return false }
            return error.range.start == offset && error.message.contains(message)
        }
    }

    @Test func parsesDerivationExpressions() throws {
        #expect(try PredicateParser.parseExpression("posts.@count").description == "posts.@count")
        #expect(try PredicateParser.parseExpression("lowercase:(title)").kind
            == .function("lowercase", [Expression(.keyPath([KeyPathComponent(.key("title"), range: SourceRange(11, 16))]), range: SourceRange(11, 16))]))
        #expect(try PredicateParser.parseExpression("now()").kind == .function("now", []))
        #expect(throws: PredicateSyntaxError.self) { try PredicateParser.parseExpression("lowercase:(title") }
    }

    @Test func parsesSortDescriptors() throws {
        let d = try SortDescriptorSyntax.parse("author.lastName desc")
        #expect(d.keyPathText == "author.lastName")
        #expect(!d.ascending)
        #expect(try SortDescriptorSyntax.parse("title").ascending)
        #expect(try SortDescriptorSyntax.parse("title ASC").ascending)
        #expect(try SortDescriptorSyntax.parse("desc").keyPathText == "desc")
        #expect(throws: PredicateSyntaxError.self) { try SortDescriptorSyntax.parse("title sideways") }
    }

    /// Core Data's date literals: `CAST(seconds, "NSDate")` (and numbers from text, "NSNumber") print
    /// back as written and read as their values; other CASTs say why not.
    @Test func castLiteralsPrintBackAndReadAsValues() throws {
        let text = "writtenAt >= CAST(733244400, \"NSDate\") AND mood BETWEEN {CAST(\"2\", \"NSNumber\"), 5}"
        let p = try PredicateParser.parsePredicate(text)
        #expect(p.description == text)
        guard case .and(let parts, _) = p, case .comparison(let date) = parts[0], case .comparison(let number) = parts[1],
              case .aggregate(let bounds) = number.right.kind else {
            Issue.record("unexpected tree \(p)")
            return
        }
        #expect(date.right.castValue == .date(secondsSinceReferenceDate: 733_244_400))
        #expect(bounds[0].castValue == .number("2"))
        #expect(try PredicateParser.parseExpression("CAST(' -1.5 ', \"NSDate\")").castValue == .date(secondsSinceReferenceDate: -1.5))
        #expect(try PredicateParser.parseExpression("CAST(1, \"NSString\")").castValue == .unsupported("CAST to 'NSString' is not supported (NSDate, NSNumber)"))
        #expect(try PredicateParser.parseExpression("lowercase:(title)").castValue == nil)
    }

    /// Nesting is bounded (`maximumNesting`): at the bound a predicate parses and prints back; one level
    /// more, 20,000 parentheses or 100,000 NOTs are a syntax error at the first level too many, never a
    /// stack overflow.
    @Test func nestingIsBoundedWithAPositionedError() throws {
        let limit = PredicateParser.maximumNesting
        let deepest = String(repeating: "(", count: limit - 1) + "NOT a == 1" + String(repeating: ")", count: limit - 1)
        let parsed = try PredicateParser.parsePredicate(deepest)
        #expect(try PredicateParser.parsePredicate(parsed.description).description == parsed.description)
        for (text, offset) in [(String(repeating: "(", count: limit + 1) + "a == 1" + String(repeating: ")", count: limit + 1), limit),
                               (String(repeating: "(", count: 20_000) + "a == 1" + String(repeating: ")", count: 20_000), limit),
                               (String(repeating: "NOT ", count: 100_000) + "a == 1", limit * 4),
                               ("a IN " + String(repeating: "{", count: 5_000) + String(repeating: "}", count: 5_000), 5 + limit)] {
            do {
                _ = try PredicateParser.parsePredicate(text)
                Issue.record("parsed \(text.prefix(40))…")
            } catch {
                #expect(error.message.hasPrefix("nested more than \(limit) levels deep"), "\(error.message)")
                #expect(error.range.start == offset, "\(error.range) for \(text.prefix(20))…")
            }
        }
    }

    /// SUBQUERY with its variable, bare and variable key paths inside, nesting, and `.@count` after it;
    /// the subquery's own variable is no variable of the predicate (no value is given for it).
    @Test func parsesSubqueries() throws {
        let text = "SUBQUERY(tags, $t, $t.name BEGINSWITH[c] $PREFIX AND SUBQUERY($t.posts, $p, likes > $MIN).@count > 1).@count >= 2"
        let p = try PredicateParser.parsePredicate(text)
        #expect(p.description == text)
        #expect(try PredicateParser.parsePredicate(p.description) == p)
        #expect(p.variableNames == ["PREFIX", "MIN"])
        guard case .comparison(let c) = p, case .subquery(let collection, let variable, let inner, let suffix) = c.left.kind else {
            Issue.record("not a subquery: \(p)")
            return
        }
        #expect(collection.description == "tags" && variable == "t" && suffix.map(\.text) == ["@count"])
        guard case .and(let parts, _) = inner, case .comparison(let first) = parts[0],
              case .variableKeyPath("t", let path) = first.left.kind else {
            Issue.record("not a variable key path: \(inner)")
            return
        }
        #expect(path.map(\.text) == ["name"])
        #expect(c.left.range == SourceRange(0, text.count - 5))
    }

    @Test func printsBackParsably() throws {
        let text = "NONE tags.name LIKE[c] \"a*\" AND (x < 3 OR NOT y == TRUE)"
        let p = try PredicateParser.parsePredicate(text)
        #expect(try PredicateParser.parsePredicate(p.description).description == p.description)
        #expect(p.description == text)
    }
}

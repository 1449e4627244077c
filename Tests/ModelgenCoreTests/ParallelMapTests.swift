import Testing
@testable import ModelgenCore

/// `ParallelMap` (files rendered and views built side by side) keeps results in index order and
/// throws the first error in index order, whichever worker finishes first.
@Suite struct ParallelMapTests {
    struct Failure: Error, Equatable { var index: Int }

    @Test func resultsStayInIndexOrder() {
        let squares = ParallelMap.map(1_000) { $0 * $0 }
        #expect(squares == (0..<1_000).map { $0 * $0 })
        #expect(ParallelMap.map(3) { String($0) } == ["0", "1", "2"])   // few items: in order on one thread
        #expect(ParallelMap.map(0) { $0 }.isEmpty)
    }

    @Test func theFirstErrorInIndexOrderIsThrown() {
        #expect(throws: Failure(index: 17)) {
            try ParallelMap.map(500) { (index: Int) throws(Failure) -> Int in
                if index == 17 || index == 400 { throw Failure(index: index) }
                return index
            }
        }
    }
}

import Foundation

// The bench's goals: each ratio with a goal is recorded as it is printed; at the end the
// bench lists those over their goal by more than the noise band and exits with status 1, so a
// regression fails `make bench` loudly instead of scrolling past.

/// How far over its goal a ratio may be before it counts as a regression: wider than the spread of
/// repeated runs of the bench (docs/performance.md).
let goalNoiseBand = 0.10

/// A measured ratio (or, with a unit, a measured figure) and its goal.
struct GoalCheck {
    let name: String
    let ratio: Double
    let goal: Double
    var unit = "x"
}

@MainActor var goalChecks: [GoalCheck] = []

/// Records a ratio against its goal (printed with the section's figures by the caller).
@MainActor func checkGoal(_ name: String, ratio: Double, goal: Double) {
    goalChecks.append(GoalCheck(name: name, ratio: ratio, goal: goal))
}

/// Records a figure against a goal in its own unit (the property access goals in nanoseconds).
@MainActor func checkGoal(_ name: String, figure: Double, goal: Double, unit: String) {
    goalChecks.append(GoalCheck(name: name, ratio: figure, goal: goal, unit: unit))
}

/// Prints every goal with its ratio; exits 1 when one is over its goal by more than the noise band.
@MainActor func reportGoals() {
    guard !goalChecks.isEmpty else { return }
    print("")
    print("goals (a ratio over its goal by more than \(Int(goalNoiseBand * 100))% fails the bench):")
    var failed = 0
    for check in goalChecks {
        let over = check.ratio > check.goal * (1 + goalNoiseBand)
        if over { failed += 1 }
        let name = check.name.padding(toLength: max(62, check.name.count), withPad: " ", startingAt: 0)
        print("  \(over ? "OVER" : "ok  ") \(name) " + String(format: "%6.2f", check.ratio) + "\(check.unit)  goal <= " + String(format: "%.1f", check.goal) + check.unit)
    }
    if failed > 0 {
        print("bench: \(failed) of \(goalChecks.count) ratios over their goal (see above)")
        fflush(nil)
        exit(1)
    }
}

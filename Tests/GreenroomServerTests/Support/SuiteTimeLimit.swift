import Testing

extension Trait where Self == TimeLimitTrait {
    /// Every suite's hang guard: 25 minutes, longer than a whole `swift test` run and shorter
    /// than the 30 minutes CI gives it.
    ///
    /// Swift Testing counts a test's time from its start, and a server test first waits for
    /// its turn (``HeavyTests``), behind every exclusive media turn queued before it: 4–5
    /// minutes in a full run on two cores. A limit shorter than a run fails a test that only
    /// waited. A test's own time is bounded from its turn by the ``Watchdog`` instead.
    static var wholeRun: Self { .timeLimit(.minutes(25)) }
}

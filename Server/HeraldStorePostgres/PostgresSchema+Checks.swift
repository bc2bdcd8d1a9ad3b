extension PostgresSchema {
    /// Migration 13: checks that fail the statement they are part of, so that the statement can share one round trip
    /// with the commands around it (a libpq pipeline runs nothing after a failure up to its end).
    ///
    /// - `herald_require(ok, message)` raises `serialization_failure` with `message` unless `ok` is true: the batch flush
    ///   checks with it that every run it meant to extend was still this transaction's, and COMMIT follows it in the
    ///   same round trip.
    /// - `herald_next_generation(expected)` bumps the write clock and returns it, and raises unless the clock became
    ///   exactly `expected` (NULL: no check): a store that has been the only writer opens its transaction with it instead of
    ///   waiting for the clock, and learns only by this failure that another writer came in between. The failure has a
    ///   SQLSTATE of its own (``anotherWriterState``), so the store tells it from every other error.
    /// The SQLSTATE of `herald_next_generation`'s refusal (class HR: Herald's own).
    static let anotherWriterState = "HR001"

    static let checksMigration = """
        CREATE FUNCTION herald_require(ok boolean, message text) RETURNS boolean LANGUAGE plpgsql AS $$
        BEGIN
            IF ok IS NOT TRUE THEN
                RAISE EXCEPTION USING MESSAGE = message, ERRCODE = 'serialization_failure';
            END IF;
            RETURN true;
        END
        $$;
        CREATE FUNCTION herald_next_generation(expected bigint) RETURNS bigint LANGUAGE plpgsql AS $$
        DECLARE
            taken bigint;
        BEGIN
            UPDATE write_clock SET generation = generation + 1 RETURNING generation INTO taken;
            IF expected IS NOT NULL AND taken <> expected THEN
                RAISE EXCEPTION USING ERRCODE = '\(anotherWriterState)',
                    MESSAGE = format('another writer committed since this node''s last commit (write clock %s, expected %s)', taken, expected);
            END IF;
            RETURN taken;
        END
        $$;
        """
}

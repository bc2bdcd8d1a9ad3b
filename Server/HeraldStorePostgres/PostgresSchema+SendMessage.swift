import HeraldStore

extension PostgresSchema {
    /// Migration 6: `herald_send_message`, the documented way for an application's backend to publish a message inside
    /// its own PostgreSQL transaction. It stores the message exactly as a send over /sync does (R4 idempotent by the
    /// sender's client message id, R2 order through the nodes' write lock, R5, the U1 counters), appends the message
    /// event to every participant's stream (R3, one body for all), and writes a wake-up with one NOTIFY: when the
    /// caller's transaction commits, every node delivers it to its live devices, and one node (the first to claim it in
    /// `published_claims`) schedules its pushes (P1-P4). When the transaction rolls back, nothing of it ever existed.
    ///
    /// ```sql
    /// BEGIN;
    /// INSERT INTO orders … ;
    /// SELECT * FROM herald_send_message(conversation => 'c12', sender => 'shop', client_message_id => 'order-881',
    ///                                   message_text => 'Your order has shipped');
    /// COMMIT;
    /// ```
    ///
    /// Errors are raised, so the caller's transaction fails with them: `no_data_found` (unknown conversation),
    /// `insufficient_privilege` (the sender is not a participant), `unique_violation` (the client message id was used
    /// in another conversation), `invalid_parameter_value` (neither text nor image).
    static let sendMessageMigration = publishedClaimsTable + sendMessageFunction(create: "CREATE FUNCTION", appendToStreams: lockedHeads)

    /// Migration 10: the batch flush writes runs only, so a head is derived from the newest run (`event_heads` keeps
    /// only the heads of users whose runs were all pruned); the function reads heads the same way.
    static let derivedHeadsMigration = sendMessageFunction(create: "CREATE OR REPLACE FUNCTION", appendToStreams: derivedHeads)

    /// Migration 19: the function writes its message event byte for byte as a send over /sync does (`MessageEvent` in
    /// HeraldSync, written by `JSONWriter`), `mentions` (N2) included. The event is written here, in the caller's
    /// transaction under the nodes' write lock, so that stream order is store order (R2) and a device that resumes right
    /// after the commit finds it (R3): no node can build it later. `herald_mentions` is `MentionParser`'s rule.
    static let messageEventMigration = mentionsFunction
        + sendMessageFunction(create: "CREATE OR REPLACE FUNCTION", appendToStreams: derivedHeads, buildEvent: frameJSONEvent)

    private static let publishedClaimsTable = """

        -- Which node schedules the pushes of a message published in SQL: the first to insert its row.
        CREATE TABLE published_claims (
            message_id bigint PRIMARY KEY,
            node_id text COLLATE "C" NOT NULL,
            claimed_at bigint NOT NULL
        );

        """

    /// The function as migration 6 created it, with `buildEvent` (the SQL that sets `payload` from the stored message)
    /// and `appendToStreams` (the SQL that takes a body id, stores the body and sets `receivers` and `seqs`) in its middle.
    private static func sendMessageFunction(create: String, appendToStreams: String, buildEvent: String = jsonbEvent) -> String {
        """
        \(create) herald_send_message(
            conversation text, sender text, client_message_id text, message_text text DEFAULT NULL, image_url text DEFAULT NULL
        ) RETURNS TABLE (message_id text, duplicate boolean) LANGUAGE plpgsql AS $$
        #variable_conflict use_variable
        DECLARE
            now_ms bigint := (extract(epoch FROM clock_timestamp()) * 1000)::bigint;
            conversation_key bigint;
            original_id bigint;
            original_conversation bigint;
            stored_id bigint;
            members text[];
            sender_name text;
            payload bytea;
            body_id bigint;
            receivers text[];
            seqs bigint[];
            wake_id bigint;
            clock bigint;
        BEGIN
            IF conversation IS NULL OR conversation !~ '^c[1-9][0-9]{0,17}$' THEN
                RAISE EXCEPTION 'unknown conversation %', conversation USING ERRCODE = 'no_data_found';
            END IF;
            IF sender IS NULL OR client_message_id IS NULL OR client_message_id = '' THEN
                RAISE EXCEPTION 'a message needs a sender and a client message id' USING ERRCODE = 'invalid_parameter_value';
            END IF;
            IF coalesce(message_text, '') = '' AND image_url IS NULL THEN
                RAISE EXCEPTION 'a message needs text or an image' USING ERRCODE = 'invalid_parameter_value';
            END IF;
            conversation_key := substr(conversation, 2)::bigint;
            -- The nodes' write lock (PostgresSchema.writeLock): taken before any row lock, as every writer does.
            PERFORM pg_advisory_xact_lock(\(writeLock));
            UPDATE write_clock SET generation = generation + 1 RETURNING generation INTO clock;
            -- R4: a retry returns the original and stores nothing.
            SELECT m.id, m.conversation_id INTO original_id, original_conversation
            FROM messages m WHERE m.sender_id = sender AND m.client_message_id = client_message_id;
            IF FOUND THEN
                IF original_conversation <> conversation_key THEN
                    RAISE EXCEPTION 'client message id % was already used in another conversation', client_message_id
                        USING ERRCODE = 'unique_violation';
                END IF;
                RETURN QUERY SELECT 'm' || original_id, true;
                RETURN;
            END IF;
            IF NOT EXISTS (SELECT 1 FROM conversations c WHERE c.id = conversation_key) THEN
                RAISE EXCEPTION 'unknown conversation %', conversation USING ERRCODE = 'no_data_found';
            END IF;
            SELECT array_agg(p.user_id ORDER BY p.user_id) INTO members FROM participants p WHERE p.conversation_id = conversation_key;
            IF members IS NULL OR NOT (sender = ANY (members)) THEN
                RAISE EXCEPTION '% is not a participant of %', sender, conversation USING ERRCODE = 'insufficient_privilege';
            END IF;
            -- The message and the U1 counters, as a send over /sync stores them (PostgresStore+Events.swift).
            INSERT INTO messages (conversation_id, sender_id, client_message_id, kind, text, image_url, created_at)
            VALUES (conversation_key, sender, client_message_id, CASE WHEN image_url IS NULL THEN 0 ELSE 1 END, message_text, image_url, now_ms)
            RETURNING id INTO stored_id;
            UPDATE conversations c SET last_activity = greatest(c.last_activity, now_ms), message_count = c.message_count + 1
            WHERE c.id = conversation_key;
            UPDATE participants p SET sent_count = p.sent_count + 1 WHERE p.conversation_id = conversation_key AND p.user_id = sender;

            SELECT u.name INTO sender_name FROM users u WHERE u.id = sender;
        \(buildEvent)
        \(appendToStreams)
            INSERT INTO stream_runs (user_id, first_seq, first_body, count, created_at)
                SELECT r.user_id, r.seq, body_id, 1, now_ms FROM unnest(receivers, seqs) AS r(user_id, seq);
            INSERT INTO stream_wakeups (node_id, created_at, users, first_seqs, first_bodies, counts, signals, generation)
                VALUES ('', now_ms, receivers, seqs, array_fill(body_id, ARRAY[cardinality(receivers)]),
                        array_fill(1::bigint, ARRAY[cardinality(receivers)]), ARRAY['published ' || stored_id], clock)
                RETURNING id INTO wake_id;
            PERFORM pg_notify('herald_wake', wake_id || ' ');
            RETURN QUERY SELECT 'm' || stored_id, false;
        END
        $$;
        """
    }

    /// Migrations 6 and 10's event: jsonb (its own key order and spacing), without `mentions`.
    private static let jsonbEvent = """
            payload := convert_to(jsonb_strip_nulls(jsonb_build_object(
                'type', 'event', 'event', 'message', 'message', jsonb_build_object(
                    'id', 'm' || stored_id, 'conversation', conversation, 'sender', sender, 'senderName', coalesce(sender_name, sender),
                    'kind', CASE WHEN image_url IS NULL THEN 'text' ELSE 'image' END, 'text', message_text, 'imageURL', image_url,
                    'clientMessageId', client_message_id, 'createdAt', now_ms)))::text, 'UTF8');

        """

    /// The event as `EventFrame.encodeBody()` writes it for a send over /sync: `JSONWriter`'s compact form, `FrameJSON`'s
    /// keys in its order, absent values omitted, and strings through `to_json`, which escapes exactly what `JSONWriter`
    /// does (`"`, `\` and the characters below U+0020: `\b \f \n \r \t` or `\u00xx` in lower case) and copies every other
    /// character as it is. `mentions` (N2) only in groups, never the sender, absent when there are none.
    private static let frameJSONEvent = """
            DECLARE
                mentioned text[] := CASE WHEN (SELECT c.kind FROM conversations c WHERE c.id = conversation_key) = \(ConversationRecord.Kind.group.rawValue)
                                         THEN herald_mentions(message_text, array_remove(members, sender)) END;
            BEGIN
                payload := convert_to('{"type":"event","event":"message","message":{"id":"m' || stored_id
                    || '","conversation":' || to_json(conversation)::text || ',"sender":' || to_json(sender)::text
                    || ',"senderName":' || to_json(coalesce(sender_name, sender))::text
                    || ',"kind":"' || CASE WHEN image_url IS NULL THEN 'text' ELSE 'image' END || '"'
                    || coalesce(',"text":' || to_json(message_text)::text, '')
                    || coalesce(',"imageURL":' || to_json(image_url)::text, '')
                    || ',"clientMessageId":' || to_json(client_message_id)::text || ',"createdAt":' || now_ms
                    || coalesce(',"mentions":' || to_json(nullif(mentioned, '{}'))::text, '') || '}}', 'UTF8');
            END;

        """

    /// N2 as `MentionParser.mentions(in:participants:)` decides it: `@` at the start of the text or after a character
    /// that cannot be part of an id, then the longest run of id characters (`A-Z a-z 0-9 . _ @ -`, ranges of code
    /// points: the collation plays no part), taken whole when it is a candidate's id, else without its trailing dots;
    /// each candidate once, in the order of their first mention. Like the Swift scan, the next match starts after the
    /// run (the expression's matches do not overlap, and a run always ends before a character that is not an id's).
    private static let mentionsFunction = """

        CREATE FUNCTION herald_mentions(message_text text, candidates text[]) RETURNS text[]
        LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
            SELECT coalesce(array_agg(found.name ORDER BY found.first), '{}')
            FROM (
                SELECT named.name, min(r.ord) AS first
                FROM regexp_matches(message_text, '(^|[^A-Za-z0-9._@-])@([A-Za-z0-9._@-]*)', 'g') WITH ORDINALITY AS r(run, ord)
                CROSS JOIN LATERAL (
                    SELECT CASE WHEN r.run[2] = ANY (candidates) THEN r.run[2] ELSE rtrim(r.run[2], '.') END AS name
                ) named
                WHERE named.name <> '' AND named.name = ANY (candidates)
                GROUP BY named.name
            ) found
        $$;

        """

    /// Migration 6's stream append: heads kept in `event_heads`, locked in user order and bumped.
    private static let lockedHeads = """
            -- Heads in user order, like every writer, so two writers of the same users never deadlock.
            INSERT INTO event_heads (user_id, last_seq) SELECT unnest(members), 0 ON CONFLICT (user_id) DO NOTHING;
            PERFORM 1 FROM event_heads h WHERE h.user_id = ANY (members) ORDER BY h.user_id FOR UPDATE;
            body_id := nextval(pg_get_serial_sequence('event_bodies', 'id'));
            INSERT INTO event_bodies (id, created_at, payload) VALUES (body_id, now_ms, payload);
            WITH moved AS (
                UPDATE event_heads h SET last_seq = h.last_seq + 1 WHERE h.user_id = ANY (members)
                RETURNING h.user_id, h.last_seq
            )
            SELECT array_agg(m.user_id ORDER BY m.user_id), array_agg(m.last_seq ORDER BY m.user_id) INTO receivers, seqs FROM moved m;
        """

    private static let derivedHeads = """
            -- The next seq of every member: one past the end of their newest run (or their saved head when
            -- every run was pruned), as the Swift path reads it (PostgresStore.derivedHead); the write lock
            -- keeps every other writer out.
            body_id := nextval(pg_get_serial_sequence('event_bodies', 'id'));
            INSERT INTO event_bodies (id, created_at, payload) VALUES (body_id, now_ms, payload);
            SELECT array_agg(m.user_id ORDER BY m.user_id),
                   array_agg(greatest((SELECT h.last_seq FROM event_heads h WHERE h.user_id = m.user_id),
                                      (SELECT r.first_seq + r.count - 1 FROM stream_runs r WHERE r.user_id = m.user_id
                                       ORDER BY r.first_seq DESC LIMIT 1), 0) + 1 ORDER BY m.user_id)
            INTO receivers, seqs FROM unnest(members) AS m(user_id);
        """
}

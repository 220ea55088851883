# gateway.jq: pi-loop's events as the gateway events of the seed (9.5,
# subscribeEmbeddedPiSession), in one jq filter:
#
#   pi-loop 'fix it' | jq -nc --unbuffered -f examples/gateway.jq
#
# The session comes from agent_start; seq numbers the events sent; the
# events a client does not need are dropped.
foreach inputs as $e ({seq: 0, session: null, out: null};
    .out = null
    | if $e.type == "agent_start" then .session = $e.sessionId else . end
    | if $e.type == "text_delta" then
        .out = {event: "session.message.delta",
                payload: {sessionId: .session, messageId: $e.messageId,
                          delta: $e.delta, index: $e.index}}
      elif $e.type == "tool_execution_start" then
        .out = {event: "session.tool.started",
                payload: {sessionId: .session, toolCallId: $e.toolCallId,
                          toolName: $e.toolName, input: $e.input}}
      elif $e.type == "agent_end" then
        .out = {event: "session.status.changed",
                payload: {sessionId: .session, status: "idle",
                          terminationReason: $e.terminationReason}}
      else . end
    | if .out then .seq += 1 else . end;
    select(.out) | {type: "event", event: .out.event, payload: .out.payload,
                    seq: .seq})

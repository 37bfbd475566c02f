// The wire types (RawJSON, errors, users, events) are part of the SDK's API.
@_exported import GreenroomProtocol

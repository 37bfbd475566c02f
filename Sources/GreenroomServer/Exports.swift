@_exported import GreenroomProtocol

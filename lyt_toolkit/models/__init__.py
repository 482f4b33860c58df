"""The vocabulary: pydantic models, enums and ID patterns of the service interface."""

"""The registry of components: the name a model file stores -> the class that reads it back."""
from maltpy.components.parser import ParserComponent

#: registry name (stored in model files) -> component class
COMPONENTS = {
    ParserComponent.name: ParserComponent,
}
